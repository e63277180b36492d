// Settings of `npm run bench` (environment variables BENCH_*).
export const TEMPLATE = 'docker'
export const GATE_RUNS = Number(process.env.BENCH_GATE_RUNS ?? 20)
export const POLL_RUNS = Number(process.env.BENCH_POLL_RUNS ?? 10)
export const POLL_INTERVAL_MS = 5000
/** wait-timeout-seconds of the quiet runs: the wait window measured. */
export const QUIET_WAIT_SECONDS = Number(process.env.BENCH_QUIET_SECONDS ?? 95)
/** client-node 2.0.1 Watch inactivity timeout. */
export const STARTUP_RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 15)
/** Scaled quiet waits: real ms per scaled second = 1000 / scale; scaled minutes measured. */
export const QUIET_SCALE = Number(process.env.BENCH_QUIET_SCALE ?? 60)
export const QUIET_SCALED_MINUTES = Number(process.env.BENCH_QUIET_SCALED_MINUTES ?? 20)
/** Real minutes of the manual merge wait measured (bench/merge-wait.ts). */
export const MERGE_MINUTES = Number(process.env.BENCH_MERGE_MINUTES ?? 3)
