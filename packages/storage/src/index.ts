export { ObjectStorage, type StorageOptions, type StoredObject } from './storage.js';
