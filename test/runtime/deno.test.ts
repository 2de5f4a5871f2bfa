// The built package on Deno (Deno.serve(calendar.fetch); memory and node:sqlite).
import { BIN, smokeSuite } from './smoke.js'

await smokeSuite(
  'Deno',
  BIN('deno'),
  ['run', '--allow-net', '--allow-read', '--allow-env', 'test/runtime/smoke/deno.mjs'],
  ['memory', 'node:sqlite'],
)
