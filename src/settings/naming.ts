// Names: Coder's name rules, the version derived from the workflow event, and the test name.
// Facts: https://github.com/coder/coder/blob/main/codersdk/name.go and the coder-k8s CRD.
import { createHash } from 'node:crypto'

/** codersdk NameValid: template and organization names. */
export const CODER_NAME_PATTERN = /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/
export const CODER_NAME_MAX = 32
const RESERVED_CODER_NAMES = ['new', 'create']

/** codersdk TemplateVersionNameValid. */
export const VERSION_NAME_PATTERN = /^[a-zA-Z0-9]+(?:[_.-][a-zA-Z0-9]+)*$/
export const VERSION_NAME_MAX = 64

/** Kubernetes object names that must also fit a label value: a DNS-1123 label. */
export const DNS1123_LABEL_PATTERN = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/
export const DNS1123_LABEL_MAX = 63
/** DNS-1123 subdomain, as the CRD demands of spec.controlPlaneRef.name. */
export const DNS1123_SUBDOMAIN_PATTERN =
  /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/
export const DNS1123_SUBDOMAIN_MAX = 253

const HASH_LENGTH = 8
const SHORT_SHA_LENGTH = 7

/** Returns the broken rule, or null when the name is a valid Coder template or organization name. */
export function coderNameProblem(name: string): string | null {
  if (name.length < 1) return 'must be at least 1 character'
  if (name.length > CODER_NAME_MAX) return `must be at most ${CODER_NAME_MAX} characters`
  if (!CODER_NAME_PATTERN.test(name)) {
    return 'must be letters and digits in runs joined by single hyphens (^[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*$)'
  }
  if (RESERVED_CODER_NAMES.includes(name))
    return 'must not be "new" or "create" (reserved by Coder)'
  return null
}

export function versionNameProblem(name: string): string | null {
  if (name.length < 1) return 'must be at least 1 character'
  if (Buffer.byteLength(name) > VERSION_NAME_MAX) {
    return `must be at most ${VERSION_NAME_MAX} characters`
  }
  if (!VERSION_NAME_PATTERN.test(name)) {
    return 'must be letters and digits in runs joined by single "_", "." or "-" (^[a-zA-Z0-9]+([_.-][a-zA-Z0-9]+)*$)'
  }
  return null
}

export function dnsLabelProblem(name: string): string | null {
  if (name.length < 1) return 'must be at least 1 character'
  if (name.length > DNS1123_LABEL_MAX) return `must be at most ${DNS1123_LABEL_MAX} characters`
  if (!DNS1123_LABEL_PATTERN.test(name)) {
    return 'must be a DNS-1123 label: lowercase letters, digits and "-", starting and ending with a letter or digit'
  }
  return null
}

export function dnsSubdomainProblem(name: string): string | null {
  if (name.length < 1) return 'must be at least 1 character'
  if (name.length > DNS1123_SUBDOMAIN_MAX) {
    return `must be at most ${DNS1123_SUBDOMAIN_MAX} characters`
  }
  if (!DNS1123_SUBDOMAIN_PATTERN.test(name)) {
    return 'must be a DNS-1123 subdomain: lowercase letters, digits, "-" and ".", each part starting and ending with a letter or digit'
  }
  return null
}

/** What the workflow run tells us about the revision under test. */
export interface RevisionContext {
  eventName: string
  ref: string
  sha: string
  pullRequest?: { number: number; headSha: string }
}

export type VersionSource = 'tag' | 'pull_request' | 'branch' | 'commit'

export interface DerivedVersion {
  name: string
  source: VersionSource
  /** The unsanitised name, for the log when sanitising changed it. */
  raw: string
}

/**
 * Input `version` (action.yml): a tag ref gives the tag name; pull_request gives pr-<number>-<sha7>
 * (the PR head sha); any other ref gives <branch>-<sha7>. The result follows Coder's version rule.
 */
export function deriveVersion(context: RevisionContext): DerivedVersion {
  const pr = context.pullRequest
  if (pr && context.eventName.startsWith('pull_request')) {
    const raw = `pr-${pr.number}-${shortSha(pr.headSha)}`
    return { name: sanitiseVersion(raw), source: 'pull_request', raw }
  }
  if (context.ref.startsWith('refs/tags/')) {
    const raw = context.ref.slice('refs/tags/'.length)
    return { name: sanitiseVersion(raw), source: 'tag', raw }
  }
  const sha = shortSha(context.sha)
  if (context.ref.startsWith('refs/heads/')) {
    const branch = context.ref.slice('refs/heads/'.length)
    const raw = `${branch}-${sha}`
    // Keep the sha whole when the branch part has to be cut.
    const suffix = `-${sha}`
    const head = sanitiseVersion(branch, VERSION_NAME_MAX - suffix.length)
    return { name: head ? `${head}${suffix}` : sha, source: 'branch', raw }
  }
  return { name: sha, source: 'commit', raw: sha }
}

/**
 * Turns any text into a valid Coder version name: accents dropped, every other character outside
 * [a-zA-Z0-9_.-] becomes "-", runs of separators collapse to their first character, separators are
 * trimmed from both ends. A name longer than `max` is cut and gets a stable hash suffix, so that two
 * long names that share a prefix stay distinct. Returns '' when nothing usable is left.
 */
export function sanitiseVersion(raw: string, max = VERSION_NAME_MAX): string {
  const cleaned = stripAccents(raw)
    .replace(/[^a-zA-Z0-9_.-]+/g, '-')
    .replace(/[_.-]+/g, (run) => run[0] as string)
    .replace(/^[_.-]+|[_.-]+$/g, '')
  if (cleaned.length <= max) return cleaned
  return cutWithHash(cleaned, raw, max, /[_.-]+$/)
}

/**
 * `<template>-<version>` as a DNS-1123 label: lowercase, "." and "_" become
 * "-", runs of "-" collapse, at most 63 characters with a stable hash suffix when cut.
 * Different versions can map to one name (V2.0_rc1 and v2-0-rc1); the spec comparison catches that.
 */
export function testNameFor(template: string, version: string): string {
  const raw = `${template}-${version}`
  const mapped = toDnsLabel(raw)
  if (mapped.length <= DNS1123_LABEL_MAX) return mapped
  return cutWithHash(mapped, raw, DNS1123_LABEL_MAX, /-+$/)
}

export function shortSha(sha: string): string {
  return sha.slice(0, SHORT_SHA_LENGTH)
}

export function stableHash(text: string, length = HASH_LENGTH): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length)
}

/** Lowercase, accents dropped, every run of other characters one "-", none at the ends; not cut. */
export function toDnsLabel(raw: string): string {
  return stripAccents(raw)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

export function cutWithHash(
  cleaned: string,
  original: string,
  max: number,
  trailing: RegExp
): string {
  const suffix = `-${stableHash(original)}`
  const head = cleaned.slice(0, max - suffix.length).replace(trailing, '')
  return `${head}${suffix}`
}

function stripAccents(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
}
