// GitHub's GraphQL endpoint (POST /graphql; /api/graphql under a GHES base URL), serving the
// auto-merge mutations. A small parser finds the top-level fields and their arguments; values may
// be inline or `$variables`. Errors come back as GitHub sends them: HTTP 200 with `errors`.
import { DOCS } from './errors.js'
import { allowedMergeMethod } from './rules.js'
import { headSha, mergeability } from './pulls.js'
import type { Route, RouteContext } from './router.js'
import type { MergeMethod, StoredPull, StoredRepo } from './state.js'
import { gitDate } from './git-objects.js'
import { selectedOnly } from './selection.js'

interface Token {
  kind: 'punct' | 'name' | 'string' | 'number' | 'variable'
  text: string
  line: number
  column: number
}

class ParseError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number
  ) {
    super(message)
  }
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  let line = 1
  let lineStart = 0
  let i = 0
  while (i < source.length) {
    const char = source[i]
    const column = i - lineStart + 1
    if (char === '\n') {
      line += 1
      lineStart = i + 1
      i += 1
    } else if (/[\s,\uFEFF]/.test(char)) {
      i += 1
    } else if (char === '#') {
      while (i < source.length && source[i] !== '\n') i += 1
    } else if (source.startsWith('...', i)) {
      tokens.push({ kind: 'punct', text: '...', line, column })
      i += 3
    } else if ('{}()[]:!=@|&'.includes(char)) {
      tokens.push({ kind: 'punct', text: char, line, column })
      i += 1
    } else if (char === '$') {
      const name = /^[_A-Za-z][_0-9A-Za-z]*/.exec(source.slice(i + 1))?.[0] ?? ''
      tokens.push({ kind: 'variable', text: name, line, column })
      i += 1 + name.length
    } else if (char === '"') {
      if (source.startsWith('"""', i)) {
        const end = source.indexOf('"""', i + 3)
        if (end === -1) throw new ParseError('Unterminated string', line, column)
        tokens.push({ kind: 'string', text: source.slice(i + 3, end), line, column })
        i = end + 3
        continue
      }
      let j = i + 1
      while (j < source.length && source[j] !== '"') j += source[j] === '\\' ? 2 : 1
      if (j >= source.length) throw new ParseError('Unterminated string', line, column)
      tokens.push({
        kind: 'string',
        text: JSON.parse(source.slice(i, j + 1)) as string,
        line,
        column
      })
      i = j + 1
    } else if (/[-0-9]/.test(char)) {
      const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(source.slice(i))?.[0] ?? char
      tokens.push({ kind: 'number', text: number, line, column })
      i += number.length
    } else if (/[_A-Za-z]/.test(char)) {
      const name = /^[_A-Za-z][_0-9A-Za-z]*/.exec(source.slice(i))![0]
      tokens.push({ kind: 'name', text: name, line, column })
      i += name.length
    } else {
      throw new ParseError(`Parse error on "${char}"`, line, column)
    }
  }
  return tokens
}

interface Field {
  name: string
  alias: string | null
  args: Record<string, unknown>
  /** null for a leaf. */
  selections: Field[] | null
  line: number
  column: number
}

interface Operation {
  type: 'query' | 'mutation' | 'subscription'
  fields: Field[]
}

/** Parses the first operation: its type and top-level fields with argument values resolved. */
function parseOperation(source: string, variables: Record<string, unknown>): Operation {
  const tokens = tokenize(source)
  let pos = 0
  const peek = () => tokens[pos]
  const fail = (token: Token | undefined): never => {
    const at = token ?? tokens[tokens.length - 1]
    throw new ParseError(
      token ? `Parse error on "${token.text}"` : 'Unexpected end of document',
      at?.line ?? 1,
      at?.column ?? 1
    )
  }
  const expect = (text: string) => {
    const token = tokens[pos]
    if (!token || token.text !== text || token.kind === 'string') fail(token)
    pos += 1
  }
  const skipBalanced = (open: string, close: string) => {
    let depth = 0
    do {
      const token = tokens[pos++]
      if (!token) fail(token)
      if (token.kind === 'punct' && token.text === open) depth += 1
      if (token.kind === 'punct' && token.text === close) depth -= 1
    } while (depth > 0)
  }
  const value = (): unknown => {
    const token = tokens[pos++]
    if (!token) return fail(token)
    if (token.kind === 'variable') return variables[token.text]
    if (token.kind === 'string') return token.text
    if (token.kind === 'number') return Number(token.text)
    if (token.kind === 'name') {
      if (token.text === 'true') return true
      if (token.text === 'false') return false
      if (token.text === 'null') return null
      return token.text // an enum value
    }
    if (token.text === '[') {
      const list: unknown[] = []
      while (peek()?.text !== ']') list.push(value())
      pos += 1
      return list
    }
    if (token.text === '{') {
      const object: Record<string, unknown> = {}
      while (peek()?.text !== '}') {
        const key = tokens[pos++]
        if (key?.kind !== 'name') fail(key)
        expect(':')
        object[key.text] = value()
      }
      pos += 1
      return object
    }
    return fail(token)
  }
  let type: Operation['type'] = 'query'
  const first = peek()
  if (first?.kind === 'name' && ['query', 'mutation', 'subscription'].includes(first.text)) {
    type = first.text as Operation['type']
    pos += 1
    if (peek()?.kind === 'name') pos += 1
    if (peek()?.text === '(') skipBalanced('(', ')')
  }
  const selectionSet = (): Field[] => {
    expect('{')
    const fields: Field[] = []
    while (peek() && peek().text !== '}') {
      if (peek().text === '...') {
        // An inline fragment (`... on Type { }`) adds its fields; named fragments are not served.
        pos += 1
        if (peek()?.text === 'on') pos += 2
        if (peek()?.text === '{') fields.push(...selectionSet())
        else pos += 1
        continue
      }
      const token = tokens[pos++]
      if (token.kind !== 'name') fail(token)
      let name = token.text
      let alias: string | null = null
      if (peek()?.text === ':') {
        pos += 1
        const real = tokens[pos++]
        if (real?.kind !== 'name') fail(real)
        alias = name
        name = real.text
      }
      const args: Record<string, unknown> = {}
      if (peek()?.text === '(') {
        pos += 1
        while (peek()?.text !== ')') {
          const key = tokens[pos++]
          if (key?.kind !== 'name') fail(key)
          expect(':')
          args[key.text] = value()
        }
        pos += 1
      }
      while (peek()?.text === '@') {
        pos += 2
        if (peek()?.text === '(') skipBalanced('(', ')')
      }
      const selections = peek()?.text === '{' ? selectionSet() : null
      fields.push({ name, alias, args, selections, line: token.line, column: token.column })
    }
    expect('}')
    return fields
  }
  return { type, fields: selectionSet() }
}

// ---- resolvers ----

interface FieldError {
  type?: string
  message: string
  extensions?: Record<string, unknown>
}

class GraphqlFieldError extends Error {
  constructor(readonly error: FieldError) {
    super(error.message)
  }
}

function findPull(ctx: RouteContext, id: unknown): { repo: StoredRepo; pull: StoredPull } {
  for (const repo of ctx.state.repos.values()) {
    for (const pull of repo.pulls.values()) if (pull.nodeId === id) return { repo, pull }
  }
  // The text GitHub gives for an unknown node id (widely reported).
  throw new GraphqlFieldError({
    type: 'NOT_FOUND',
    message: `Could not resolve to a node with the global id of '${String(id)}'.`
  })
}

type Node = { __typename: string; [field: string]: unknown }

function pullPayload(
  ctx: RouteContext,
  repo: StoredRepo,
  pull: StoredPull,
  payloadType: string
): Node {
  const merged = pull.mergedAt !== null
  return {
    __typename: payloadType,
    clientMutationId: null,
    pullRequest: {
      __typename: 'PullRequest',
      id: pull.nodeId,
      number: pull.number,
      url: `${ctx.htmlRepoUrl(repo)}/pull/${pull.number}`,
      state: merged ? 'MERGED' : pull.state.toUpperCase(),
      merged,
      headRefName: pull.head,
      baseRefName: pull.base,
      headRefOid: headSha(repo, pull),
      mergeStateStatus: mergeability(ctx.state, repo, pull).state.toUpperCase(),
      autoMergeRequest: pull.autoMerge
        ? {
            __typename: 'AutoMergeRequest',
            enabledAt: pull.autoMerge.enabledAt,
            mergeMethod: pull.autoMerge.mergeMethod.toUpperCase(),
            commitHeadline: pull.autoMerge.commitTitle,
            commitBody: pull.autoMerge.commitMessage,
            enabledBy: {
              __typename: ctx.state.user(pull.autoMerge.enabledBy).type,
              login: pull.autoMerge.enabledBy
            }
          }
        : null
    }
  }
}

// The part of GitHub's schema the sandbox serves: type -> field -> type of an object field (null
// for scalars and enums).
const SCHEMA: Record<string, Record<string, string | null>> = {
  Query: {},
  Mutation: {
    enablePullRequestAutoMerge: 'EnablePullRequestAutoMergePayload',
    disablePullRequestAutoMerge: 'DisablePullRequestAutoMergePayload'
  },
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

function inputOf(field: Field): Record<string, unknown> {
  const input = field.args.input
  if (!input || typeof input !== 'object') {
    // The text graphql-ruby gives for a missing required argument.
    throw new GraphqlFieldError({
      message: `Field '${field.name}' is missing required arguments: input`,
      extensions: { code: 'missingRequiredArguments', arguments: 'input' }
    })
  }
  return input as Record<string, unknown>
}

const unprocessable = (message: string) => new GraphqlFieldError({ type: 'UNPROCESSABLE', message })

function requirePullWrite(ctx: RouteContext): void {
  if (ctx.can('pullRequests', 'write')) return
  // The text is reported for GraphQL calls of a GITHUB_TOKEN without the permission
  // (fpicalausa/remove-stale-branches#49); guess: the error type FORBIDDEN.
  throw new GraphqlFieldError({
    type: 'FORBIDDEN',
    message:
      ctx.grant.kind === 'installation'
        ? 'Resource not accessible by integration'
        : 'Resource not accessible by personal access token'
  })
}

const METHOD_TEXT: Record<MergeMethod, string> = {
  merge: 'merge commits',
  squash: 'squash merges',
  rebase: 'rebase merges'
}

function enableAutoMerge(ctx: RouteContext, field: Field) {
  const input = inputOf(field)
  const { repo, pull } = findPull(ctx, input.pullRequestId)
  requirePullWrite(ctx)
  const method = String(input.mergeMethod ?? 'MERGE').toLowerCase() as MergeMethod
  if (!['merge', 'squash', 'rebase'].includes(method)) {
    throw new GraphqlFieldError({
      message: `Argument 'mergeMethod' on InputObject 'EnablePullRequestAutoMergeInput' has an invalid value (${String(input.mergeMethod)}). Expected type 'PullRequestMergeMethod'.`
    })
  }
  // guess: the text for a closed pull request, in GitHub's "Pull request <reason>" form.
  if (pull.state !== 'open') throw unprocessable('Pull request Pull request is closed')
  // Measured: "Pull request Auto merge is not allowed for this repository" (enfabrica/enkit#1172;
  // newer reports show it without the leading "Pull request ").
  if (!repo.settings.allowAutoMerge) {
    throw unprocessable('Pull request Auto merge is not allowed for this repository')
  }
  if (!allowedMergeMethod(repo, method)) {
    // Measured for merge commits (coder/coder#16297); the other two by analogy.
    throw unprocessable(`Merge method ${METHOD_TEXT[method]} are not allowed on this repository`)
  }
  if (typeof input.expectedHeadOid === 'string' && input.expectedHeadOid !== headSha(repo, pull)) {
    // guess: the text when the head moved since expectedHeadOid.
    throw unprocessable('Pull request Head branch was modified. Review and try the merge again.')
  }
  // Measured: a pull request that could be merged right now is refused (rjwalters/loom#3379,
  // peter-evans/enable-pull-request-automerge#1118). guess: 'unknown' (still computing) is accepted.
  if (mergeability(ctx.state, repo, pull).state === 'clean') {
    throw unprocessable('Pull request Pull request is in clean status')
  }
  pull.autoMerge = {
    enabledBy: ctx.grant.login,
    mergeMethod: method,
    enabledAt: gitDate(),
    commitTitle: typeof input.commitHeadline === 'string' ? input.commitHeadline : null,
    commitMessage: typeof input.commitBody === 'string' ? input.commitBody : null
  }
  pull.cleanSinceMs = null
  return pullPayload(ctx, repo, pull, 'EnablePullRequestAutoMergePayload')
}

function disableAutoMerge(ctx: RouteContext, field: Field) {
  const input = inputOf(field)
  const { repo, pull } = findPull(ctx, input.pullRequestId)
  requirePullWrite(ctx)
  pull.autoMerge = null
  return pullPayload(ctx, repo, pull, 'DisablePullRequestAutoMergePayload')
}

const MUTATIONS: Record<string, (ctx: RouteContext, field: Field) => unknown> = {
  enablePullRequestAutoMerge: enableAutoMerge,
  disablePullRequestAutoMerge: disableAutoMerge
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
      data[key] = project(MUTATIONS[field.name](ctx, field), field.selections)
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
  handle: (ctx) => ({ status: 200, json: selectedOnly(ctx.input(), execute(ctx)) })
}
