/**
 * The import CLI's progress line on a terminal: a bar and `done/total records`, redrawn in place
 * (carriage return, then erase to the end of the line) only when its text changes, and erased
 * when the import ends so the summary starts on a clean line. Drawn here rather than with a
 * progress-bar package, which every library user would otherwise install for the CLI alone.
 */
export interface ProgressLine {
  update(done: number, total: number | undefined): void
  stop(): void
}

const WIDTH = 30

export function progressLine(out: { write(text: string): unknown }): ProgressLine {
  let shown = ''
  return {
    update(done, total) {
      const filled = total ? Math.min(WIDTH, Math.floor((done / total) * WIDTH)) : 0
      const text = total ? ` ${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)} ${done}/${total} records` : ` ${done} records`
      if (text === shown) return
      shown = text
      out.write(`\r${text}\x1b[K`)
    },
    stop() {
      if (shown) out.write('\r\x1b[K')
      shown = ''
    },
  }
}
