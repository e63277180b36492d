// The bare action the bench compares start-up against: @actions/core and @actions/github, one
// request. Built by bare-bundle.ts with the same ncc as dist/, at bench time.
import * as core from '@actions/core'
import * as github from '@actions/github'

const [owner, repo] = core.getInput('gitops-repository').split('/')
// getOctokit reads GITHUB_API_URL, as the gate does.
const octokit = github.getOctokit(core.getInput('gitops-token'))
await octokit.rest.repos.get({ owner: owner!, repo: repo! })
