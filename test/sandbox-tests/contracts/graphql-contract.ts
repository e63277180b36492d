// GitHub's GraphQL schema (@octokit/graphql-schema), the documents the gate sends (found in its
// source), and the check of one exchange: the document validates against the schema, the
// variables fit its variable types, and the answer is exactly what GitHub's executor would shape
// from it: only the selected fields, under their response keys, of the schema's types.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import {
  buildSchema,
  execute,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  parse,
  validate
} from 'graphql'
import { REPO_ROOT } from '../../sandbox/action-runner.js'

let loaded: GraphQLSchema | undefined

export function githubGraphqlSchema(): GraphQLSchema {
  // The package's exports map hides its files from require.resolve; it is a devDependency here.
  const file = path.join(REPO_ROOT, 'node_modules/@octokit/graphql-schema/schema.graphql')
  // GitHub's SDL defines two EnterpriseOwnerInfo fields twice: graphql-js's SDL rules would refuse it.
  return (loaded ??= buildSchema(readFileSync(file, 'utf8'), { assumeValidSDL: true }))
}

/** Every GraphQL document in src/ (template literals that open with `query` or `mutation`). */
export function gateDocuments(dir = path.join(REPO_ROOT, 'src')): string[] {
  const documents: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) documents.push(...gateDocuments(file))
    else if (entry.name.endsWith('.ts')) {
      const source = readFileSync(file, 'utf8')
      for (const found of source.matchAll(/`\s*((?:query|mutation)\s+\w+[^`]*)`/g)) {
        documents.push(found[1])
      }
    }
  }
  return documents
}

/** The document against the schema: graphql-js's validation rules, as GitHub applies them. */
export function documentProblems(query: string): string[] {
  try {
    return validate(githubGraphqlSchema(), parse(query)).map((e) => e.message)
  } catch (error) {
    return [`does not parse: ${(error as Error).message}`]
  }
}

// The sandbox's answer is the source: each field reads its response key (alias or name).
const byResponseKey: GraphQLFieldResolver<unknown, unknown> = (source, _args, _ctx, info) =>
  source && typeof source === 'object'
    ? (source as Record<string, unknown>)[info.path.key as string]
    : undefined

/**
 * Everything wrong with one exchange (empty: it matches). The answer's `data` is run through
 * graphql-js's executor with the document and the variables: an unselected field, a wrong type,
 * an enum value the schema lacks, a null in a non-null field or a variable of the wrong shape
 * shows as a difference or an error.
 */
export function exchangeProblems(
  query: string,
  variables: Record<string, unknown> | undefined,
  answer: { data?: unknown; errors?: unknown }
): string[] {
  const problems = documentProblems(query)
  if (problems.length > 0) return problems
  if (answer.data === undefined || answer.data === null) return []
  const shaped = execute({
    schema: githubGraphqlSchema(),
    document: parse(query),
    rootValue: answer.data,
    variableValues: variables,
    fieldResolver: byResponseKey,
    typeResolver: (value) => (value as { __typename?: string }).__typename
  }) as { data?: unknown; errors?: readonly { message: string }[] }
  for (const error of shaped.errors ?? []) problems.push(error.message)
  const expected = JSON.stringify(shaped.data ?? null)
  const actual = JSON.stringify(answer.data)
  // Key order aside: graphql-js answers in selection order, as GitHub does.
  if (expected !== actual) problems.push(`the answer ${actual} is not its selection ${expected}`)
  return problems
}
