/** The import CLI's hand-drawn progress line (src/import/progress-line.ts). */
import { describe, expect, it } from 'vitest'
import { progressLine } from '../../../src/import/progress-line.js'

const drawn = () => {
  const writes: string[] = []
  return { writes, line: progressLine({ write: (text: string) => writes.push(text) }) }
}

describe('import progress line', () => {
  it('redraws in place only when its text changes, and erases itself at the end', () => {
    const { writes, line } = drawn()
    line.update(0, 4)
    line.update(0, 4)
    line.update(2, 4)
    line.update(4, 4)
    line.stop()
    expect(writes).toEqual([
      `\r ${'░'.repeat(30)} 0/4 records\x1b[K`,
      `\r ${'█'.repeat(15)}${'░'.repeat(15)} 2/4 records\x1b[K`,
      `\r ${'█'.repeat(30)} 4/4 records\x1b[K`,
      '\r\x1b[K',
    ])
  })

  it('counts without a bar when the total is unknown, and a line never drawn is not erased', () => {
    const { writes, line } = drawn()
    line.update(7, undefined)
    line.stop()
    line.stop()
    expect(writes).toEqual(['\r 7 records\x1b[K', '\r\x1b[K'])
    const quiet = drawn()
    quiet.line.stop()
    expect(quiet.writes).toEqual([])
  })
})
