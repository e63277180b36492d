// Step 1, inputs: every secret masked first, then every input parsed into one typed Settings object
// and the kubeconfig loaded. Every error is reported at once, before any request.
import { readFileSync, statSync } from 'node:fs'
import type { KubeConfig } from '@kubernetes/client-node'
import { readRunContext } from '../settings/run-context.js'
import { urlCredentials } from '../settings/rules.js'
import { type InputName, parseInputs, SECRET_INPUTS, type Settings } from '../settings/parse.js'
import { loadKubeConfig } from '../kube/config.js'
import type { RunContext } from '../settings/settings.js'
import { failed, messageOf, type StepResult, succeeded } from './step.js'

export interface InputsStepInput {
  read: (name: InputName) => string
  env: Record<string, string | undefined>
  /** Registers a secret with the runner (core.setSecret) before anything is logged. */
  mask: (secret: string) => void
}

export interface ValidInputs {
  settings: Settings
  kc: KubeConfig
  context: RunContext
  /** GITHUB_API_URL: GitHub.com or GHES (…/api/v3). */
  apiUrl: string
}

/**
 * guess: the runner masks any occurrence of a registered value, so a one- or two-character template
 * variable would blank out that text everywhere in the log. Shorter values are not registered; they
 * never reach a log line or a command line anyway (they go to the CLI in a 0600 file).
 */
export const MIN_MASKED_VARIABLE_LENGTH = 3

export function validateInputs(input: InputsStepInput): StepResult<ValidInputs> {
  // core.setSecret hides a value only in later log lines: register every secret first.
  for (const name of SECRET_INPUTS) {
    const value = input.read(name).trim()
    if (value) input.mask(value)
  }
  urlCredentials(input.read('coder-url')).forEach(input.mask)

  let kc: KubeConfig | null = null
  let kubeError = ''
  try {
    kc = loadKubeConfig({
      kubeconfig: input.read('kubeconfig'),
      context: input.read('kube-context'),
      mask: input.mask
    }).kc
  } catch (error) {
    const named = (error as { input?: unknown }).input
    const which = named === 'kube-context' || named === 'kubeconfig' ? named : 'kubeconfig'
    kubeError = `Input "${which}" is invalid: ${messageOf(error).replace(/\.$/, '')}.`
  }

  const context = readRunContext(input.env)
  const parsed = parseInputs(input.read, context, realFiles)
  if (parsed.ok) {
    for (const { value } of parsed.settings.coder.variables) {
      if (value.trim().length >= MIN_MASKED_VARIABLE_LENGTH) input.mask(value.trim())
    }
  }
  const problems = [
    ...(parsed.ok ? [] : parsed.errors.map((e) => e.message)),
    ...(kubeError ? [kubeError] : [])
  ]
  if (!parsed.ok || kc === null) {
    const count = `${problems.length} input${problems.length === 1 ? ' is' : 's are'} invalid`
    return failed('invalid-input', `${count}; nothing was pushed, committed or promoted.`, {
      problems,
      advice: ['Fix the inputs named above in the workflow file, then run the job again.']
    })
  }
  return succeeded(
    { settings: parsed.settings, kc, context, apiUrl: input.env.GITHUB_API_URL || '' },
    describeVersion(parsed.settings)
  )
}

function describeVersion(settings: Settings): string {
  const { version, versionSource, versionRaw } = settings.coder
  if (versionSource === 'input') return `version ${version}`
  const from = versionRaw !== version ? ` "${versionRaw}"` : ''
  return `version ${version}, derived from the ${versionSource}${from}`
}

const realFiles = {
  isDirectory(path: string): boolean {
    try {
      return statSync(path).isDirectory()
    } catch {
      return false
    }
  },
  readText(path: string): string | null {
    try {
      return readFileSync(path, 'utf8')
    } catch {
      return null
    }
  }
}
