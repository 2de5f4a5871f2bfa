/**
 * Differential test against real PHP: every corpus expression, in three zones and at two
 * reference instants, must give the instant PHP's strtotime gives, or be one of the documented
 * deliberate differences (test/strtotime/differences.ts, docs/dates.md). One `php` process
 * evaluates the whole batch. PHP is required (Debian: `apt-get install -y php-cli`).
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDateToUtc } from '../src/time/parse.js'
import { EXPRESSIONS, INSTANTS, ZONES } from './strtotime/corpus.js'
import { DIFFERENCES, type Difference } from './strtotime/differences.js'

const SCRIPT = fileURLToPath(new URL('./strtotime/strtotime.php', import.meta.url))
const DOCS = fileURLToPath(new URL('../docs/dates.md', import.meta.url))

interface PhpAnswers {
  php: string
  results: (number | false)[][][]
}

const differenceOf = new Map<string, Difference>()
for (const d of DIFFERENCES) for (const e of d.expressions) differenceOf.set(e, d)
const rephrasings = DIFFERENCES.flatMap((d) => (d.instead.kind === 'sameAs' ? Object.values(d.instead.rephrasings) : []))
const BATCH = [...new Set([...EXPRESSIONS, ...rephrasings])]

function runPhp(): PhpAnswers {
  try {
    const out = execFileSync('php', [SCRIPT], {
      input: JSON.stringify({ zones: ZONES, instants: INSTANTS, expressions: BATCH }),
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
    })
    return JSON.parse(out.toString()) as PhpAnswers
  } catch (e) {
    throw new Error(`PHP is needed for this test (Debian: apt-get install -y php-cli): ${(e as Error).message}`)
  }
}

/** Our answer as the app stores it: the local wall clock, then its UTC instant. */
function ours(expression: string, zone: string, instant: number): number | null {
  const r = parseDateToUtc(expression, zone, new Date(instant * 1000))
  return r === null ? null : Date.parse(`${r.utc.replace(' ', 'T')}Z`) / 1000
}

const show = (t: number | false | null, zone: string): string =>
  t === false || t === null ? 'rejected' : `${new Date(t * 1000).toLocaleString('sv-SE', { timeZone: zone })} (${t})`

let php: PhpAnswers
const phpAt = (zone: number, instant: number, expression: string): number | false => {
  const answer = php.results[zone]?.[instant]?.[BATCH.indexOf(expression)]
  if (answer === undefined) throw new Error(`no PHP answer for ${JSON.stringify(expression)}`)
  return answer
}
const agreement = new Map<string, { agree: number; deliberate: number; total: number }>()
const differing = new Set<string>()

beforeAll(() => {
  php = runPhp()
})

afterAll(() => {
  if (!php) return
  const lines = [...agreement].map(([zone, c]) => `${zone}: ${c.agree}/${c.total} as PHP, ${c.deliberate} deliberate differences`)
  console.log(`strtotime (PHP ${php.php}), ${EXPRESSIONS.length} expressions x ${INSTANTS.length} instants:\n  ${lines.join('\n  ')}`)
})

describe('dates as PHP strtotime reads them', () => {
  it('has a corpus of at least 150 distinct expressions', () => {
    expect(new Set(EXPRESSIONS).size).toBe(EXPRESSIONS.length)
    expect(EXPRESSIONS.length).toBeGreaterThanOrEqual(150)
  })

  it('runs PHP 8', () => {
    expect(php.php).toMatch(/^8\./)
  })

  ZONES.forEach((zone, z) => {
    INSTANTS.forEach((instant, n) => {
      it(`agrees with PHP in ${zone} at ${new Date(instant * 1000).toISOString()}, except for the documented differences`, () => {
        const problems: string[] = []
        const counts = agreement.get(zone) ?? { agree: 0, deliberate: 0, total: 0 }
        for (const expression of EXPRESSIONS) {
          counts.total++
          const theirs = phpAt(z, n, expression)
          const mine = ours(expression, zone, instant)
          if ((theirs === false && mine === null) || theirs === mine) {
            counts.agree++
            continue
          }
          differing.add(expression)
          const difference = differenceOf.get(expression)
          let expected: number | null | false
          if (!difference) expected = theirs
          else if (difference.instead.kind === 'rejected') expected = null
          else {
            const rephrased = difference.instead.rephrasings[expression]
            expected = rephrased === undefined ? false : phpAt(z, n, rephrased)
            if (expected === false) problems.push(`${JSON.stringify(expression)}: PHP refuses the rephrasing ${JSON.stringify(rephrased)}`)
          }
          if (expected !== false && mine === expected) {
            counts.deliberate++
            continue
          }
          problems.push(`${JSON.stringify(expression)}: PHP ${show(theirs, zone)}, ours ${show(mine, zone)}`)
        }
        agreement.set(zone, counts)
        expect(problems).toEqual([])
      })
    })
  })

  it('lists only differences that still occur, each for an expression of the corpus', () => {
    const listed = DIFFERENCES.flatMap((d) => d.expressions)
    expect(listed.filter((e) => !EXPRESSIONS.includes(e))).toEqual([])
    expect(listed.filter((e) => !differing.has(e))).toEqual([])
  })

  it('documents every difference in docs/dates.md', () => {
    const docs = readFileSync(DOCS, 'utf8')
    const missing = DIFFERENCES.flatMap((d) => d.expressions).filter((e) => !docs.includes(`\`${e}\``))
    expect(missing).toEqual([])
  })
})
