/**
 * Just enough of Bun's and Deno's APIs for `tsc` (Node's @types) to check the bun and deno
 * examples. At run time the real runtimes provide them.
 */
declare module 'bun:sqlite' {
  export class Database {
    constructor(filename?: string)
    prepare(sql: string): { all(...params: any[]): unknown[]; run(...params: any[]): { changes: number } }
    exec(sql: string): void
    close(): void
  }
}

declare module 'node:sqlite' {
  export class DatabaseSync {
    constructor(path: string)
    prepare(sql: string): { all(...params: any[]): unknown[]; run(...params: any[]): { changes: number | bigint } }
    exec(sql: string): void
    close(): void
  }
}

declare namespace Deno {
  interface ServeOptions {
    port?: number
    hostname?: string
    signal?: AbortSignal
    onListen?(address: { port: number; hostname: string }): void
  }
  function serve(
    options: ServeOptions,
    handler: (request: Request) => Response | Promise<Response>,
  ): { finished: Promise<void>; shutdown(): Promise<void> }
  function addSignalListener(signal: 'SIGINT' | 'SIGTERM', handler: () => void): void
  function exit(code?: number): never
}
