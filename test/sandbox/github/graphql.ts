// GitHub's GraphQL endpoint (POST /graphql; /api/graphql under a GHES base URL), serving the
// auto-merge mutations (graphql-operations.ts) and createCommitOnBranch (graphql-commit.ts). The
// document is parsed by graphql-document.ts; errors come back as GitHub sends them: HTTP 200 with
// `errors`.
import { DOCS } from './errors.js'
import type { Answer, Route, RouteContext } from './router.js'
import { selectedOnly } from './selection.js'
import { parseOperation, ParseError } from './graphql-document.js'
import type { Field, Operation } from './graphql-document.js'
import { COMMIT_MUTATIONS } from './graphql-commit.js'
import { GraphqlFieldError, MUTATIONS } from './graphql-operations.js'
import type { Node } from './graphql-operations.js'

// The part of GitHub's schema the sandbox serves: type -> field -> type of an object field (null
// for scalars and enums).
const SCHEMA: Record<string, Record<string, string | null>> = {
  Query: { viewer: 'User' },
  User: { __typename: null, login: null, databaseId: null },
  Mutation: {
    enablePullRequestAutoMerge: 'EnablePullRequestAutoMergePayload',
    disablePullRequestAutoMerge: 'DisablePullRequestAutoMergePayload',
    createCommitOnBranch: 'CreateCommitOnBranchPayload'
  },
  CreateCommitOnBranchPayload: {
    __typename: null,
    clientMutationId: null,
    commit: 'Commit',
    ref: 'Ref'
  },
  Commit: { __typename: null, oid: null, url: null, messageHeadline: null },
  Ref: { __typename: null, name: null, prefix: null },
  EnablePullRequestAutoMergePayload: {
    __typename: null,
    clientMutationId: null,
    pullRequest: 'PullRequest'
  },
  DisablePullRequestAutoMergePayload: {
    __typename: null,
    clientMutationId: null,
    pullRequest: 'PullRequest'
  },
  PullRequest: {
    __typename: null,
    id: null,
    number: null,
    url: null,
    state: null,
    merged: null,
    headRefName: null,
    baseRefName: null,
    headRefOid: null,
    mergeStateStatus: null,
    autoMergeRequest: 'AutoMergeRequest'
  },
  AutoMergeRequest: {
    __typename: null,
    enabledAt: null,
    mergeMethod: null,
    commitHeadline: null,
    commitBody: null,
    enabledBy: 'Actor'
  },
  Actor: { __typename: null, login: null }
}

/** Validation before execution, as GraphQL does: graphql-ruby's error for an unknown field. */
function validate(fields: Field[], typeName: string, path: string[]): unknown[] {
  const errors: unknown[] = []
  for (const field of fields) {
    const key = field.alias ?? field.name
    const type = SCHEMA[typeName]
    if (!(field.name in type)) {
      errors.push({
        path: [...path, key],
        extensions: { code: 'undefinedField', typeName, fieldName: field.name },
        locations: [{ line: field.line, column: field.column }],
        message: `Field '${field.name}' doesn't exist on type '${typeName}'`
      })
      continue
    }
    const child = type[field.name]
    if (child && field.selections) errors.push(...validate(field.selections, child, [...path, key]))
  }
  return errors
}

/** The answer as selected: only the fields asked for, under their aliases. */
function project(value: unknown, selections: Field[] | null): unknown {
  if (selections === null || value === null || typeof value !== 'object') return value
  const node = value as Node
  const out: Record<string, unknown> = {}
  for (const field of selections) {
    out[field.alias ?? field.name] = project(node[field.name], field.selections)
  }
  return out
}

/**
 * `viewer`: the token's own account, for user and installation tokens alike (schema: Query.viewer
 * is a User). guess: for an installation token GitHub answers with the App's bot account.
 */
function viewer(ctx: RouteContext): Node {
  const user = ctx.state.user(ctx.grant.login)
  return { __typename: 'User', login: user.login, databaseId: user.id }
}

const RESOLVERS: Record<string, (ctx: RouteContext, field: Field) => unknown> = {
  viewer,
  ...MUTATIONS,
  ...COMMIT_MUTATIONS
}

function execute(ctx: RouteContext) {
  const input = ctx.input()
  if (typeof input.query !== 'string') {
    // guess: GitHub's text for a body without a query.
    return { errors: [{ message: 'A query attribute must be specified and must be a string.' }] }
  }
  const variables =
    input.variables && typeof input.variables === 'object'
      ? (input.variables as Record<string, unknown>)
      : {}
  let operation: Operation
  try {
    operation = parseOperation(input.query, variables)
  } catch (error) {
    if (!(error instanceof ParseError)) throw error
    // graphql-ruby's form, "Parse error on ... at [line, column]" (guess: the exact wording).
    return {
      errors: [
        {
          message: `${error.message} at [${error.line}, ${error.column}]`,
          locations: [{ line: error.line, column: error.column }]
        }
      ]
    }
  }
  const typeName = operation.type === 'mutation' ? 'Mutation' : 'Query'
  const invalid = validate(operation.fields, typeName, [operation.type])
  if (invalid.length > 0) return { errors: invalid }
  const data: Record<string, unknown> = {}
  const errors: unknown[] = []
  for (const field of operation.fields) {
    const key = field.alias ?? field.name
    try {
      data[key] = project(RESOLVERS[field.name](ctx, field), field.selections)
    } catch (error) {
      if (!(error instanceof GraphqlFieldError)) throw error
      data[key] = null
      errors.push({
        ...(error.error.type ? { type: error.error.type } : {}),
        path: [key],
        ...(error.error.extensions ? { extensions: error.error.extensions } : {}),
        locations: [{ line: field.line, column: field.column }],
        message: error.error.message
      })
    }
  }
  return errors.length > 0 ? { data, errors } : { data }
}

export const graphqlRoute: Route = {
  method: 'POST',
  template: '/graphql',
  docs: DOCS.graphql,
  handle: (ctx) =>
    rateLimitedAnswer(ctx) ?? { status: 200, json: selectedOnly(ctx.input(), execute(ctx)) }
}

/**
 * GraphQL's primary limit (rate-limits-for-the-graphql-api, "Exceeding the rate limit"): HTTP 200,
 * an error of type RATE_LIMITED, `x-ratelimit-remaining: 0` and the reset in epoch seconds.
 * guess: the message text; clients read the type and the headers.
 */
function rateLimitedAnswer(ctx: RouteContext): Answer | undefined {
  const seconds = ctx.state.graphqlRateLimits.shift()
  if (seconds === undefined) return undefined
  const reset = Math.floor(Date.now() / 1000) + seconds
  const headers = {
    'x-ratelimit-limit': '5000',
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': String(reset),
    'x-ratelimit-resource': 'graphql'
  }
  const error = {
    type: 'RATE_LIMITED',
    message: 'API rate limit exceeded for installation ID 4242.'
  }
  return { status: 200, headers, json: { data: null, errors: [error] } }
}
