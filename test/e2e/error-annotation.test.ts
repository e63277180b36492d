// End to end: the one error annotation says why, not only what. It holds the error, the
// reason lines (the failed checks, the integrity differences) and what to set, as the runner reads
// the `::error` line of the log.
import { describe, expect, it } from '@jest/globals'
import { GITOPS_REPO, OWNER } from '../sandbox/world.js'
import { oneWorldPerTest } from './world-per-test.js'
import { errorAnnotations } from './runner-log.js'

const newWorld = oneWorldPerTest()

describe('the error annotation, end to end', () => {
  it('lists the failed preflight checks and the inputs to set', async () => {
    const w = await newWorld()
    w.github.addRuleset(OWNER, GITOPS_REPO, { requirePullRequest: true })
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    const annotations = errorAnnotations(run.stdout)
    expect(annotations).toHaveLength(1)
    const [{ title, message }] = annotations as [{ title: string; message: string }]
    expect(title).toBe('❌ docker v1.0.0 was not promoted')
    const lines = message.split('\n')
    expect(lines[0]).toContain('The preflight found what this run cannot do: 2 checks failed.')
    expect(lines.filter((line) => line.startsWith('• '))).toHaveLength(2)
    expect(message).toContain('template "docker" does not exist')
    expect(message).toContain('create-template: true')
    expect(message).toMatch(
      /ruleset "[^"]*" \(id \d+\) refuses direct commits to main \(rule pull_request\)/
    )
    expect(message).toContain('gitops-mode: pull-request')
    expect(lines.at(-1)).toMatch(/^→ Grant or change what each line names/)
  })

  it('names the integrity differences', async () => {
    const w = await newWorld.withDocker()
    const other = w.coder.backend.findTemplate(OWNER, 'docker')!.activeVersionId
    w.kube.controller!.script('docker-v1-0-0', { overrideVersionID: other })
    const run = await w.run()
    expect(run.exitCode).toBe(1)
    const annotations = errorAnnotations(run.stdout)
    expect(annotations).toHaveLength(1)
    const lines = annotations[0]!.message.split('\n')
    expect(lines[0]).toContain('does not prove version v1.0.0')
    const reasons = lines.filter((line) => line.startsWith('• '))
    expect(reasons.length).toBeGreaterThan(0)
    expect(reasons.join('\n')).toContain(other)
    expect(lines.some((line) => line.startsWith('→ ') && line.includes('test-name'))).toBe(true)
  })
})
