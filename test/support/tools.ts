/**
 * Heavy tools that one test each uses, installed on demand like the runtimes (pinned, into
 * `.cache/tools/`) rather than by a newcomer's `npm ci`: arethetypeswrong (33 MB with its own
 * TypeScript, test/runtime/package.test.ts) and openapi-typescript (20 MB with Redocly's parser,
 * test/typed-client.test.ts). Neither has an install script.
 */
import { join } from 'node:path'
import { installPinned, type PinnedSet } from './pinned-install.js'

/** Pinned: an update is a change of this file, tested like any other. */
export const TOOL_VERSIONS = { '@arethetypeswrong/cli': '0.18.5', 'openapi-typescript': '7.13.0' } as const

type Tool = keyof typeof TOOL_VERSIONS
const BINARIES: Record<Tool, string> = { '@arethetypeswrong/cli': 'attw', 'openapi-typescript': 'openapi-typescript' }

const setOf = (tool: Tool): PinnedSet => ({
  folder: join('tools', `${tool.replace('/', '+')}-${TOOL_VERSIONS[tool]}`),
  packages: { [tool]: TOOL_VERSIONS[tool] },
  marks: [join('node_modules', '.bin', BINARIES[tool])],
})

/** The path of a tool's command, installing the tool first if needed. */
export async function toolBinary(tool: Tool): Promise<string> {
  return join(await installPinned(setOf(tool)), 'node_modules', '.bin', BINARIES[tool])
}

/** Installs every pinned tool (CI does it before the tests, so a registry failure shows as such). */
export async function installTools(): Promise<void> {
  for (const tool of Object.keys(TOOL_VERSIONS) as Tool[]) await toolBinary(tool)
}
