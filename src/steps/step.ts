// The shape every step of the gate shares (Kargo's promotion steps are the model): a typed input,
// a typed result that is either a value or a failure with the message a user reads and the advice
// that goes with it, and a small context: the run's cancel signal, a logger and a clock. A step knows
// nothing of the report or of @actions/core; it is safe to run twice with the same input.
import type { StepLog } from '../log/log.js'
import { type Clock, systemClock } from '../timing/clock.js'
import { type Sleep, sleep } from '../timing/sleep.js'
import type { FailureKind } from './failure-kinds.js'

export type { StepLog }

export type FailureStatus = 'failed' | 'timed out' | 'cancelled' | 'refused'
export type StepStatus = 'succeeded' | 'skipped' | FailureStatus

export interface Failure {
  status: FailureStatus
  kind: FailureKind
  /** What happened, complete for the user. */
  message: string
  /** What to do next, one sentence each. */
  advice: string[]
  /** The items behind the message: each invalid input, each failed check, each difference. */
  problems: string[]
}

export type StepResult<Value, Facts = never> =
  | { ok: true; status: 'succeeded' | 'skipped'; value: Value; detail: string }
  | { ok: false; failure: Failure; facts?: Facts }

export interface StepContext {
  signal: AbortSignal
  log: StepLog
  /** The run's clock (src/timing/clock.ts): a step reads the time here, never from Date.now(). */
  now(): number
  /** The run's pause (src/timing/sleep.ts) when it is not the real one: tests give a fake clock's. */
  sleep?: Sleep
  /** The run's deadline timer when it is not the real one (a fake clock's, as `sleep`). */
  timeout?: (ms: number) => AbortSignal
}

/** The context's time, pause and timer as one Clock, for the adapters' `clock` option. */
export function clockOf(context: StepContext): Clock {
  return {
    now: () => context.now(),
    sleep: context.sleep ?? sleep,
    timeout: context.timeout ?? systemClock.timeout
  }
}

/** What a host or client call needs of the step: its cancel and its clock (gitops/host.ts HostCall). */
export function callOf(context: StepContext): { signal: AbortSignal; clock: Clock } {
  return { signal: context.signal, clock: clockOf(context) }
}

/**
 * Where a step records its facts as it goes (the Journal gives one to each step): a cancel that
 * cuts the step keeps the last facts published, e.g. that the promote request was sent.
 */
export interface FactSink<Facts> {
  publish(facts: Facts): void
}

export function succeeded<Value>(value: Value, detail: string): StepResult<Value, never> {
  return { ok: true, status: 'succeeded', value, detail }
}

export function skipped<Value>(value: Value, detail: string): StepResult<Value, never> {
  return { ok: true, status: 'skipped', value, detail }
}

export function failed<Facts = never>(
  kind: FailureKind,
  message: string,
  options: { advice?: string[]; problems?: string[]; status?: FailureStatus; facts?: Facts } = {}
): StepResult<never, Facts> {
  return {
    ok: false,
    failure: {
      status: options.status ?? 'failed',
      kind,
      message,
      advice: options.advice ?? [],
      problems: options.problems ?? []
    },
    ...(options.facts === undefined ? {} : { facts: options.facts })
  }
}

/** A step's work ended because the run was cancelled. */
export function cancelled<Facts = never>(message: string, facts?: Facts): StepResult<never, Facts> {
  return failed('cancelled', message, { status: 'cancelled', facts })
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
