/**
 * A throwaway PostgreSQL server for tests: Debian's binaries (`apt-get install postgresql`),
 * a fresh cluster in a temporary directory, listening on 127.0.0.1 only (plus a private unix
 * socket directory), trust authentication, durability off (fsync) because the data is thrown
 * away. PostgreSQL refuses to run as root, so as root every command runs as the `postgres` user.
 */
import { execFile } from 'node:child_process'
import { chownSync, existsSync, readdirSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface PgServer {
  url: string
  /** Where its data directory and log live. */
  dir: string
  /** Stops the server (`pg_ctl stop -m fast`: open connections get 57P01). */
  stop(): Promise<void>
  /** Starts it again on the same port. */
  start(): Promise<void>
  /** Stops it and deletes its directory. */
  destroy(): Promise<void>
}

/** Directory of initdb/pg_ctl: CALENDAR_TEST_PG_BIN, else the newest /usr/lib/postgresql/N/bin, or null. */
export function findPostgresBin(): string | null {
  const chosen = process.env.CALENDAR_TEST_PG_BIN
  if (chosen) return existsSync(join(chosen, 'initdb')) ? chosen : null
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return null
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] ? join(root, versions[0], 'bin') : null
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address()
      const port = typeof address === 'object' && address ? address.port : 0
      srv.close(() => resolve(port))
    })
  })
}

/** A temporary directory the server's user owns, and how to run its tools as that user. */
async function serverHome(bin: string) {
  const asRoot = userInfo().uid === 0
  const dir = await mkdtemp(join(tmpdir(), 'calendar-pg-'))
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres'])
    const { stdout: gid } = await run('id', ['-g', 'postgres'])
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()))
  }
  const exec = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args)
  return { dir, exec }
}

/** `settings`: more `-c name=value` server settings. */
export async function startPostgres(bin: string, settings: string[] = []): Promise<PgServer> {
  const { dir, exec } = await serverHome(bin)
  const data = join(dir, 'data')
  await exec('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync'])
  return serve(dir, data, exec, settings)
}

/**
 * A streaming replica of `primary` (its wal_level must be replica or logical, the default): a
 * `pg_basebackup -R` copy, hot standby, replaying each commit `applyDelayMs` after the primary
 * made it (`recovery_min_apply_delay`), so that reading it right after a write really is stale.
 */
export async function startReplica(bin: string, primary: PgServer, applyDelayMs: number): Promise<PgServer> {
  const { dir, exec } = await serverHome(bin)
  const data = join(dir, 'data')
  const source = new URL(primary.url)
  await exec('pg_basebackup', ['-D', data, '-R', '-X', 'stream', '-c', 'fast', '-h', source.hostname, '-p', source.port, '-U', 'postgres'])
  return serve(dir, data, exec, [`-c hot_standby=on`, `-c recovery_min_apply_delay=${applyDelayMs}ms`])
}

async function serve(
  dir: string,
  data: string,
  exec: (tool: string, args: string[]) => Promise<unknown>,
  extra: string[],
): Promise<PgServer> {
  const port = await freePort()
  const settings = [
    `-c listen_addresses=127.0.0.1`,
    `-p ${port}`,
    `-k ${dir}`,
    `-c fsync=off`,
    `-c synchronous_commit=off`,
    `-c full_page_writes=off`,
    `-c max_connections=200`,
    ...extra,
  ].join(' ')
  const start = async () => {
    await exec('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', settings, '-w', '-t', '30', 'start'])
  }
  const stop = async () => {
    await exec('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop'])
  }
  try {
    await start()
  } catch (err) {
    await rm(dir, { recursive: true, force: true })
    throw err
  }
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    dir,
    start,
    stop,
    async destroy() {
      await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']).catch(() => undefined)
      await rm(dir, { recursive: true, force: true })
    },
  }
}
