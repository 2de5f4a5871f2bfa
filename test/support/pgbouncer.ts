/**
 * A throwaway PgBouncer (Debian's `pgbouncer` package) in front of the test PostgreSQL server,
 * in transaction pooling mode with a small pool: the usual way many app processes share one
 * database. Listens on 127.0.0.1 only; trust authentication, as the test server.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { freePort } from './postgres-server.js'

export const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => existsSync(p)) ?? null

export interface Bouncer {
  url: string
  stop(): Promise<void>
}

async function listening(port: number, child: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}): ${log()}`)
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (up) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`pgbouncer did not listen on ${port}: ${log()}`)
}

/** PgBouncer for database `database` of the server at `serverUrl`, `poolSize` server connections. */
export async function startBouncer(serverUrl: string, database: string, poolSize: number): Promise<Bouncer> {
  if (!PGBOUNCER) throw new Error('pgbouncer is not installed (apt-get install pgbouncer)')
  const server = new URL(serverUrl)
  const dir = await mkdtemp(join(tmpdir(), 'calendar-pgbouncer-'))
  const port = await freePort()
  await writeFile(join(dir, 'users.txt'), `"postgres" ""\n`)
  await writeFile(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `${database} = host=${server.hostname} port=${server.port} dbname=${database} user=postgres`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir =`,
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 200',
      'ignore_startup_parameters = extra_float_digits',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  )
  // PgBouncer refuses to run as root: as root it runs as the postgres user (as the test server).
  const asRoot = userInfo().uid === 0
  if (asRoot) execFileSync('chown', ['-R', 'postgres', dir])
  const args = [join(dir, 'pgbouncer.ini')]
  const child = asRoot ? spawn('runuser', ['-u', 'postgres', '--', PGBOUNCER, ...args]) : spawn(PGBOUNCER, args)
  let output = ''
  child.stdout?.on('data', (d) => (output += String(d)))
  child.stderr?.on('data', (d) => (output += String(d)))
  await listening(port, child, () => output)
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/${database}`,
    async stop() {
      child.kill('SIGTERM')
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)))
      await rm(dir, { recursive: true, force: true })
    },
  }
}
