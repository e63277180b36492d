// The in-memory Git host of the step tests keeps the contract of the GitHub adapter: the same
// table (test/gitops/host-contract.ts) runs here and against GitHub on the sandbox
// (test/gitops/github/host.test.ts).
import { MemoryGitHost } from '../../gitops/memory/host.js'
import { describeHostContract } from '../../gitops/host-contract.js'

describeHostContract('in memory', (files) => {
  const host = new MemoryGitHost({ files })
  return {
    host,
    gateLogin: host.login,
    push: (branch, path, content) => host.push(branch, path, content),
    protect: (branch) => void host.protectedBranches.add(branch)
  }
})
