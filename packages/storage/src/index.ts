export { ObjectStorage, PART_BYTES, type StorageOptions, type StoredObject } from './storage.js';
