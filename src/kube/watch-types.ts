// The types the wait (wait.ts) and its watch (watch-stream.ts) share: the options of one wait, its
// counters and the Waiter both pass around. Here so neither of the two imports the other's types.
import type { Sleep } from '../timing/sleep.js'
import type { KubeConfig } from '@kubernetes/client-node'
import type { CoderTemplateTest } from '../objects/coder-k8s.js'
import type { WatchRules } from './watch-state.js'

export interface WaitBackoff {
  /** First delay after an error; default 500. */
  initialMs: number
  /** Cap of the doubling delay; default 10000. */
  maxMs: number
}

/** Counters for a benchmark (requests per minute). The wait adds to the object the caller passes. */
export interface WaitStats {
  gets: number
  lists: number
  watches: number
  events: number
  bookmarks: number
  /** Watches client-node ended after its inactivity limit (watch-stream.ts inactivityLimitMs). */
  inactivityTimeouts: number
  /** 410 Gone, as an ERROR event or an HTTP answer. */
  gone: number
  /** Watches the server ended cleanly (e.g. after timeoutSeconds). */
  cleanEnds: number
  /** Failed reads and broken or refused watches. */
  errors: number
}

export interface WaitOptions {
  kc: KubeConfig
  namespace: string
  name: string
  signal: AbortSignal
  isFinal: (test: CoderTemplateTest) => boolean
  /** Every observation: the object, or null when it does not exist (not yet, or deleted). */
  onObserved?: (test: CoderTemplateTest | null) => void
  /** Epoch ms: while the object has never been seen, NotFound is waiting until then. */
  syncDeadline: number
  /** Counted from the first time the object was seen. */
  waitTimeoutMs: number
  now?: () => number
  /** The pause of a backoff; tests inject a fake clock's. Default the toolkit's (src/timing). */
  sleep?: Sleep
  /** The deadline timer of a bounded read, on the same clock as `now`. Default AbortSignal.timeout. */
  timeout?: (ms: number) => AbortSignal
  /** Server-side timeoutSeconds of each watch; default 300. */
  watchTimeoutSeconds?: number
  backoff?: Partial<WaitBackoff>
  /** Client timeout of each GET/LIST; default 30000. */
  requestTimeoutMs?: number
  /** Client timeout of the one GET at the wait deadline; default 5000. */
  finalReadTimeoutMs?: number
  /**
   * A watch that ends sooner than this without any event counts as a failure for the backoff, so a
   * server that closes streams at once is never hammered; default 1000.
   */
  minHealthyWatchMs?: number
  /**
   * client-node's watch inactivity limit; default timeoutSeconds + 30 s (watch-stream.ts
   * inactivityLimitMs). guess: `requestTimeoutMs` is private in client-node 2.0.1's typings but a
   * plain field at run time (set when present); only tests shorten it.
   */
  watchInactivityMs?: number
  stats?: WaitStats
}

/** One wait: its options with defaults, the reducer's rules, and the paths it reads. */
export interface Waiter {
  options: WaitOptions
  rules: WatchRules
  stats: WaitStats
  now: () => number
  what: string
  collectionPath: string
  objectPath: string
}
