// GET /user: the token's own account. An installation token (GITHUB_TOKEN, a GitHub App's) has no
// user: 403 "Resource not accessible by integration" (measured: actions/create-github-app-token#258,
// anthropics/claude-code-action#538). guess: the answer for a user token carries more profile fields
// (name, email, ...); these are the ones every user object has.
import { userJson } from './json.js'
import type { Route } from './router.js'

export const userRoutes: Route[] = [
  {
    method: 'GET',
    template: '/user',
    docs: 'https://docs.github.com/rest/users/users#get-the-authenticated-user',
    handle(ctx) {
      if (ctx.grant.kind === 'installation') {
        throw ctx.fail(403, 'Resource not accessible by integration')
      }
      return { status: 200, json: userJson(ctx, ctx.grant.login) }
    }
  }
]
