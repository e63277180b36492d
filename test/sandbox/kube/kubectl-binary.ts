// Where the real kubectl is, for the fidelity tests that run it against the sandbox.
import { execFileSync } from 'node:child_process'

/** $KUBECTL (a specific binary) or kubectl on PATH; null when neither is there. */
export function findKubectl(): string | null {
  if (process.env.KUBECTL) return process.env.KUBECTL
  try {
    return execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim() || null
  } catch {
    return null
  }
}
