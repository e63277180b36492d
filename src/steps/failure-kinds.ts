// The kinds of failure a run can end with, in their own module: the steps, the journal, the report
// and docs/troubleshooting.md all name them, so a new kind starts here; test/unit/steps/troubleshooting.test.ts
// keeps the doc in step.

/** Every way a run can fail; the summary and docs/troubleshooting.md are organised by it. */
export const FAILURE_KINDS = [
  'invalid-input',
  'preflight',
  'push',
  'presets',
  'locate',
  'commit',
  'pull-request',
  'foreign-change',
  'sync-timeout',
  'test-failed',
  'wait-timeout',
  'wait-failed',
  'integrity',
  'refused',
  'promote-failed',
  'cancelled'
] as const

export type FailureKind = (typeof FAILURE_KINDS)[number]
