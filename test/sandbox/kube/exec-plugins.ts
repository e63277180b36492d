// Kubeconfigs whose user authenticates through an exec credential plugin: small /bin/sh scripts in
// a temp dir, for tests of what the gate does with them (and whether a credential leaks).
// client-node runs `exec.command` with `exec.args`, JSON.parses its stdout as an ExecCredential
// and caches it by the kubeconfig user's name (node_modules/@kubernetes/client-node/dist/
// exec_auth.js; in 2.x one cache per KubeConfig object), so every kubeconfig made here gets a user
// name of its own and no cached credential of another fixture can answer for it.
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse as parseYaml, stringify as toYaml } from 'yaml'
import type { KubeSandbox } from './server.js'

export interface ExecPluginKubeconfig {
  /** The kubeconfig text (cluster of the sandbox, the exec user, one current context). */
  kubeconfig: string
  /** The kubeconfig user's name (unique per kubeconfig). */
  user: string
  /** The plugin script. */
  script: string
  /** How many times the plugin ran so far. */
  calls(): number
}

export interface ExecPluginOptions {
  /** What the plugin hands out (default: the sandbox's token, so it authenticates). */
  token?: string
  /** kubeconfig context namespace. */
  namespace?: string
  /** Also written to the plugin's stderr (client-node keeps stderr only for a non-zero exit). */
  stderr?: string
}

interface KubeconfigDocument {
  users: { name: string; user: Record<string, unknown> }[]
  contexts: { name: string; context: { user: string; namespace?: string } }[]
}

const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`

/** One temp dir of plugin scripts; cleanup() removes it. */
export class ExecPlugins {
  readonly dir = mkdtempSync(join(tmpdir(), 'kube-exec-plugins-'))
  private count = 0

  constructor(private readonly kube: KubeSandbox) {}

  /**
   * (a) Prints the bare token, not an ExecCredential: client-node's JSON.parse fails (its
   * SyntaxError quotes the start of the output, i.e. of the token).
   */
  bareToken(options: ExecPluginOptions = {}): ExecPluginKubeconfig {
    return this.plugin('bare-token', options.token ?? this.kube.token, options, 0)
  }

  /** (b) Prints a valid client.authentication.k8s.io/v1 ExecCredential with the token. */
  execCredential(
    options: ExecPluginOptions & { expirationTimestamp?: string } = {}
  ): ExecPluginKubeconfig {
    const credential = {
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: {
        token: options.token ?? this.kube.token,
        ...(options.expirationTimestamp ? { expirationTimestamp: options.expirationTimestamp } : {})
      }
    }
    return this.plugin('exec-credential', JSON.stringify(credential), options, 0)
  }

  /** (c) Writes `stderr` (default: the token) and exits 1: client-node rejects with that text. */
  failing(options: ExecPluginOptions = {}): ExecPluginKubeconfig {
    const stderr = options.stderr ?? `token ${options.token ?? this.kube.token} was refused`
    return this.plugin('failing', '', { ...options, stderr }, 1)
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }

  private plugin(
    kind: string,
    stdout: string,
    options: ExecPluginOptions,
    exitCode: number
  ): ExecPluginKubeconfig {
    this.count += 1
    const user = `${kind}-${process.pid}-${this.count}-${randomBytes(3).toString('hex')}`
    const script = join(this.dir, `${user}.sh`)
    const callLog = join(this.dir, `${user}.calls`)
    const lines = [
      '#!/bin/sh',
      `echo call >> ${shellQuote(callLog)}`,
      ...(stdout ? [`printf '%s\\n' ${shellQuote(stdout)}`] : []),
      ...(options.stderr ? [`printf '%s\\n' ${shellQuote(options.stderr)} >&2`] : []),
      `exit ${exitCode}`
    ]
    writeFileSync(script, lines.join('\n') + '\n', { mode: 0o700 })
    const config = parseYaml(
      this.kube.kubeconfig({ namespace: options.namespace })
    ) as KubeconfigDocument
    config.users = [
      {
        name: user,
        user: {
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: script,
            // kubectl requires interactiveMode for the v1 API.
            interactiveMode: 'Never'
          }
        }
      }
    ]
    for (const context of config.contexts) context.context.user = user
    return {
      kubeconfig: toYaml(config),
      user,
      script,
      calls: () =>
        existsSync(callLog) ? readFileSync(callLog, 'utf8').split('\n').filter(Boolean).length : 0
    }
  }
}
