declare module 'sockjs-client' {
  /** The browser-compatible SockJS client (a WebSocket-like object); only what the tests use. */
  export default class SockJS {
    constructor(url: string, reserved?: unknown, options?: { transports?: string | string[] });
    close(code?: number, reason?: string): void;
  }
}
