/**
 * Headless Chromium for the browser tests: Debian's `chromium` (installed by .ci/run), or the
 * binary `CHROMIUM_PATH` names, driven by playwright-core. In CI a missing browser fails the
 * test that needs it rather than skipping it.
 */
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/**
 * Starts the browser, quiet: no sandbox (CI runs as root), no GPU, no background traffic.
 *
 * @example
 * const browser = await launchChromium()
 * const page = await browser.newPage()
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`)
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}
