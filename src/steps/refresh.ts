// Step: the nudge of gitops-refresh. As soon as the change is on gitops-branch, one JSON merge
// patch per engine object the preflight resolved asks Argo CD or Flux to reconcile now. A refused
// or failed patch is a warning, never a failure: the engine's own poll still syncs. Each patch has
// its own time limit; a cancel stops it (and the run). Nothing is committed or merged again.
import type { KubeConfig } from '@kubernetes/client-node'
import { describeObject, type EngineObject, patchForRefresh } from '../kube/refresh.js'
import { isAbortError } from '../kube/request.js'
import {
  cancelled,
  messageOf,
  skipped,
  type StepContext,
  type StepResult,
  succeeded
} from './step.js'

/** One patch may take this long; the engine's poll is the fallback, so a slow API is not waited on. */
export const REFRESH_PATCH_TIMEOUT_MS = 10_000

export interface RefreshInput {
  kc: KubeConfig
  objects: EngineObject[]
  timeoutMs?: number
}

export interface Refreshed {
  /** The objects patched, as `describeObject` names them. */
  nudged: string[]
  /** One line per refused or failed patch. */
  warnings: string[]
}

export async function refreshEngines(
  input: RefreshInput,
  context: StepContext
): Promise<StepResult<Refreshed>> {
  const result: Refreshed = { nudged: [], warnings: [] }
  if (input.objects.length === 0) return skipped(result, 'no gitops-refresh')
  const now = new Date(context.now())
  // In order: a Flux source before its Kustomization (the preflight's order).
  for (const object of input.objects) {
    if (context.signal.aborted) return cancelled('The run was cancelled during gitops-refresh.')
    try {
      const call = {
        kc: input.kc,
        signal: context.signal,
        timeoutMs: input.timeoutMs ?? REFRESH_PATCH_TIMEOUT_MS
      }
      await patchForRefresh(call, object, now)
      result.nudged.push(describeObject(object))
    } catch (error) {
      if (context.signal.aborted || isAbortError(error))
        return cancelled('The run was cancelled during gitops-refresh.')
      const line = `gitops-refresh: ${messageOf(error)}; the engine's own poll will sync the change.`
      result.warnings.push(line)
      context.log.warning(line)
    }
  }
  const detail = `asked ${result.nudged.length} of ${input.objects.length} object(s) to reconcile${result.warnings.length ? ` (${result.warnings.length} warning(s))` : ''}`
  return succeeded(result, detail)
}
