// The wiring of one run: the valid inputs and the clients, and from them the typed input of each
// step, so that run() reads as the mission and each step gets the part of Settings it needs only.
import type { KubeConfig } from '@kubernetes/client-node'
import { type Clients, createClients, forgetSecretInputs } from './clients.js'
import { deploymentAccessReader, previousReader } from './deployments.js'
import { SECRET_INPUTS, type Settings } from './settings/settings.js'
import type { CommitInput, Committed } from './steps/commit.js'
import { readTestState } from './kube/test-state.js'
import type { ValidInputs } from './steps/inputs.js'
import type { Located, LocateInput } from './steps/locate.js'
import type { Preflight, PreflightInput } from './steps/preflight.js'
import type { PresetsInput, TestPlan } from './steps/presets.js'
import type { PromoteInput } from './steps/promote.js'
import type { PullRequestInput } from './steps/pull-request.js'
import type { PushInput, Pushed } from './steps/push.js'
import type { RefreshInput } from './steps/refresh.js'
import type { StepLog } from './steps/step.js'
import type { TidyInput } from './steps/tidy.js'
import type { VerifyInput } from './steps/verify.js'
import type { Tested, WaitInput } from './steps/wait.js'

export class StepInputs {
  readonly settings: Settings
  readonly kc: KubeConfig
  readonly clients: Clients

  constructor(
    inputs: ValidInputs,
    private readonly signal: AbortSignal,
    private readonly log: StepLog,
    private readonly env: Record<string, string | undefined>
  ) {
    // Child processes (kube exec credential plugins) need none of the secret inputs.
    forgetSecretInputs(SECRET_INPUTS)
    this.settings = inputs.settings
    this.kc = inputs.kc
    this.clients = createClients(inputs, signal, log)
  }

  preflight(): PreflightInput {
    const { coder, host } = this.clients
    const deploymentAccess = deploymentAccessReader(this.settings, this.env, this.log, this.signal)
    return { settings: this.settings, coder, host, kc: this.kc, deploymentAccess }
  }

  push(preflight: Preflight): PushInput {
    return {
      coder: this.settings.coder,
      preflight,
      client: this.clients.coder,
      tempDir: this.env.RUNNER_TEMP,
      readVersionTimes: this.settings.gitops.keepTests > 0
    }
  }

  presets(pushed: Pick<Pushed, 'versionId' | 'versionName'>): PresetsInput {
    return { test: this.settings.test, pushed, client: this.clients.coder }
  }

  /** keep-tests asks the cluster whether a test still runs before its manifest goes. */
  private testState(name: string, signal: AbortSignal) {
    return readTestState(this.kc, this.settings.test.namespace, name, signal)
  }

  commit(preflight: Preflight, pushed: Pushed, plan?: TestPlan): CommitInput {
    const { host } = this.clients
    const versionCreatedAt = pushed.versionCreatedAt ?? {}
    const testState = (name: string, signal: AbortSignal) => this.testState(name, signal)
    return {
      settings: this.settings,
      preflight,
      pushed,
      host,
      versionCreatedAt,
      testState,
      ...(plan ? { plan: plan.tests } : {})
    }
  }

  /** mode: verify: the live test's manifest (no version name: `version.active`). */
  commitLive(preflight: Preflight): CommitInput {
    const pushed = { template: preflight.template, versionName: '' }
    return {
      settings: this.settings,
      preflight,
      pushed,
      host: this.clients.host,
      versionCreatedAt: {},
      // A live test of another run may still be running: never pruned then.
      testState: (name: string, signal: AbortSignal) => this.testState(name, signal)
    }
  }

  pullRequest(
    preflight: Preflight,
    pushed: PullRequestInput['pushed'],
    committed: Committed
  ): PullRequestInput {
    const { gitops, test, runUrl, mode } = this.settings
    const live = mode === 'verify'
    return { gitops, test, preflight, pushed, live, committed, runUrl, host: this.clients.host }
  }

  refresh(preflight: Preflight): RefreshInput {
    return { kc: this.kc, objects: preflight.refresh }
  }

  wait(
    pushed: WaitInput['pushed'],
    committed: WaitInput['committed'],
    syncFrom: number,
    runStartedAt: number,
    landed = false
  ): WaitInput {
    const { test } = this.settings
    return { test, committed, pushed, kc: this.kc, syncFrom, runStartedAt, landed }
  }

  promote(
    preflight: Preflight,
    pushed: Pick<Pushed, 'template' | 'versionName' | 'createdAt'>,
    tested: Tested
  ): PromoteInput {
    const { settings } = this
    return {
      promote: settings.promote,
      allowRollback: settings.allowRollback,
      namespace: settings.test.namespace,
      organization: preflight.organization,
      template: pushed.template,
      // Exactly the version that passed: status.templateVersionID of the object judged.
      tested: { id: tested.versionId, name: pushed.versionName, createdAt: pushed.createdAt },
      starting: preflight.startingActive,
      coder: this.clients.coder,
      kc: this.kc
    }
  }

  /** mode: promote. */
  locate(preflight: Preflight): LocateInput {
    const { coder, host } = this.clients
    return { settings: this.settings, preflight, coder, host }
  }

  /** mode: promote: the guard starts from expected-active-version-id or this job's start. */
  promoteLocated(preflight: Preflight, located: Located, tested: Tested): PromoteInput {
    return {
      ...this.promote(preflight, located, tested),
      starting: located.starting,
      startingIsExpected: this.settings.expectedActiveVersionId !== ''
    }
  }

  /** mode: verify: the decision and the rollback, from the preflight's starting point. */
  verify(preflight: Preflight, tested: Tested): VerifyInput {
    const { settings } = this
    return {
      organization: preflight.organization,
      template: preflight.template,
      namespace: settings.test.namespace,
      starting: preflight.startingActive,
      tested,
      rollbackTo: settings.live.rollbackTo,
      promote: settings.promote,
      coder: this.clients.coder,
      kc: this.kc,
      recordedPrevious: previousReader(
        settings,
        { template: preflight.template, organization: preflight.organization },
        this.env,
        this.log,
        this.signal
      )
    }
  }

  /** The version this run pushed (gate, test) or located (promote job) is `pushed`. */
  tidy(
    preflight: Preflight,
    pushed: Pick<Pushed, 'template' | 'versionId' | 'versionName'> | undefined,
    testFailed: boolean,
    located?: Located
  ): TidyInput {
    // In a promote job the rollback target is the guard's starting point (the test job's start).
    const startingActiveId = located?.starting?.id ?? preflight.startingActive?.id
    return {
      settings: this.settings.tidy,
      dryRun: this.settings.promote === 'dry-run',
      client: this.clients.coder,
      organization: preflight.organization,
      template: pushed?.template ?? preflight.template,
      startingActiveId,
      ours: pushed ? { id: pushed.versionId, name: pushed.versionName } : null,
      testFailed
    }
  }

  get testName(): string {
    return `${this.settings.test.namespace}/${this.settings.test.name}`
  }
}
