// The test's milestones on the controller's own clock (status.startTime,
// createAttemptTime, agentsReadyTime, completionTime), for the chart of the run. Pure.
import type { CoderTemplateTest } from '../objects/coder-k8s.js'

/** Milliseconds since the epoch; null when the status does not carry the field (yet). */
export interface ControllerClock {
  startTime: number | null
  createAttemptTime: number | null
  agentsReadyTime: number | null
  completionTime: number | null
}

function timeOf(value: unknown): number | null {
  if (typeof value !== 'string') return null
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? null : ms
}

export function controllerClockOf(test: CoderTemplateTest): ControllerClock {
  const status = test.status ?? {}
  return {
    startTime: timeOf(status.startTime),
    createAttemptTime: timeOf(status.createAttemptTime),
    agentsReadyTime: timeOf(status.agentsReadyTime),
    completionTime: timeOf(status.completionTime)
  }
}
