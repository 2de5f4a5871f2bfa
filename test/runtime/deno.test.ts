// The built package on Deno (Deno.serve(calendar.fetch); memory and node:sqlite).
import { runtimeBinary } from '../support/runtimes.js'
import { smokeSuite } from './smoke.js'

await smokeSuite(
  'Deno',
  await runtimeBinary('deno'),
  ['run', '--allow-net', '--allow-read', '--allow-env', 'test/runtime/smoke/deno.mjs'],
  ['memory', 'node:sqlite'],
)
