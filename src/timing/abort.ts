// One way to stop waiting for work that cannot itself be interrupted (a rate-limit sleep, a kube
// exec credential plugin, a tool-cache download): settle with the work, or reject as soon as the
// signal aborts. The abandoned work runs on; its late result or error is ignored.

export interface RaceAbortOptions {
  /** Let the work finish its own cancel for this long after the abort (e.g. a CLI on SIGINT). */
  graceMs?: number
  /** The error to reject with; default the signal's reason. */
  error?: (signal: AbortSignal) => unknown
}

export function raceAbort<T>(
  work: Promise<T>,
  signal: AbortSignal,
  options: RaceAbortOptions = {}
): Promise<T> {
  const stopped = (): unknown => (options.error ? options.error(signal) : signal.reason)
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined
    const onAbort = (): void => {
      if (!options.graceMs) return reject(stopped())
      timer = setTimeout(() => reject(stopped()), options.graceMs)
    }
    const settle = (): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
    }
    work.then(
      (value) => {
        settle()
        resolve(value)
      },
      (error: unknown) => {
        settle()
        reject(error)
      }
    )
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
  })
}
