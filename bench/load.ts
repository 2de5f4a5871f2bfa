/**
 * What the HTTP benches share: bench servers started as child processes of a checkout, pinned to
 * one core while `wrk` loads them from the other, and their CPU time asked over IPC.
 */
import { execFile, execFileSync, fork, type ChildProcess } from 'node:child_process'
import os from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Ready } from './seed.js'

export const hasCommand = (name: string): boolean => {
  try {
    execFileSync('which', [name], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Servers on CPU 0 and the load generator on CPU 1, when there are two cores and `taskset`. */
export const PIN = process.env.BENCH_PIN !== '0' && os.cpus().length >= 2 && hasCommand('taskset')

/** Moves a process and all its threads (libuv pool, GC helpers) onto one CPU. */
export const pin = (pid: number, cpu: number): void => {
  if (PIN) execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' })
}

export interface Started extends Ready {
  child: ChildProcess
}

/**
 * Forks `bench/servers/{entry}` of the checkout at `root` (its own sources and node_modules) and
 * resolves once it is seeded and listening; it is pinned to CPU 0 only then, so that servers
 * seed in parallel on both cores.
 *
 * @example
 * const server = await startServer('/work/other', 'router.ts', { BENCH_STORAGE: 'sqlite', BENCH_CACHE: 'on' })
 */
export function startServer(root: string, entry: string, env: Record<string, string> = {}): Promise<Started> {
  const child = fork(join(root, 'bench', 'servers', entry), [], {
    cwd: root,
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)],
    env: { ...process.env, ...env },
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${root} ${entry}: not ready after 300 s`)), 300_000)
    child.once('message', (ready: Ready) => {
      clearTimeout(timer)
      pin(child.pid!, 0)
      resolve({ ...ready, child })
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${root} ${entry}: exited with ${code} before listening`))
    })
  })
}

/** CPU seconds (user + system) the server process used so far, asked over IPC. */
export function serverCpu(server: { child: ChildProcess }): Promise<number> {
  return new Promise((resolve) => {
    server.child.once('message', ({ cpu }: { cpu: NodeJS.CpuUsage }) => resolve((cpu.user + cpu.system) / 1e6))
    server.child.send('cpu')
  })
}

const run = promisify(execFile)

/** One wrk run (one thread, on CPU 1 when pinned); its stdout. */
export async function runWrk(args: string[]): Promise<string> {
  const { stdout } = await (PIN ? run('taskset', ['-c', '1', 'wrk', ...args]) : run('wrk', args))
  return stdout
}

/** Requests per second from wrk's summary. */
export const wrkRate = (stdout: string): number => Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? NaN)
