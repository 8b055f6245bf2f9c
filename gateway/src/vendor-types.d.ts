declare module 'swagger-ui-dist' {
  /** Directory holding the static Swagger UI bundle. */
  export function getAbsoluteFSPath(): string;
}
