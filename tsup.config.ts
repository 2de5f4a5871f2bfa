import { defineConfig } from 'tsup'

// One build for every public entry, so shared modules land in shared chunks in both formats:
// a class such as StorageUnavailableError or PayloadTooLargeError exists once, and `instanceof`
// holds between the router and the storage or adapter entries.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'storage/index': 'src/storage/index.ts',
    'storage/memory': 'src/storage/memory.ts',
    'storage/sql/index': 'src/storage/sql/index.ts',
    'testing/index': 'src/testing/index.ts',
    'adapters/node': 'adapters/node/index.ts',
    'adapters/express': 'adapters/express/index.ts',
    'adapters/bun': 'adapters/bun/index.ts',
    // The importers (ical.js, csv-parse) stay out of the root entry; the CLI keeps its #! line.
    'import/index': 'src/import/index.ts',
    // The worker that parses files off the event loop (src/import/sandbox.ts finds it beside itself).
    'import/parse-worker': 'src/import/parse-worker.ts',
    cli: 'src/import/cli.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  splitting: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  platform: 'node',
  // Keep `node:` specifiers: Deno resolves builtins only with the prefix.
  removeNodeProtocol: false,
  // import.meta.url in the CommonJS build (the import worker's sandbox.ts finds its file by it).
  shims: true,
})
