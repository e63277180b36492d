// Flag parsing of the fake `coder` CLI (serpent/pflag subset).
import { CliError } from './common.mjs'

export const PUSH_FLAGS = {
  directory: { short: 'd', type: 'string' },
  name: { type: 'string' },
  activate: { type: 'bool', default: true },
  yes: { short: 'y', type: 'bool' },
  message: { short: 'm', type: 'string' },
  variable: { type: 'array', alias: 'var' },
  'variables-file': { type: 'string' },
  'provisioner-tag': { type: 'array' },
  'ignore-lockfile': { type: 'bool' },
  'always-prompt': { type: 'bool' },
  org: { short: 'O', type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  'no-version-warning': { type: 'bool' },
  'force-tty': { type: 'bool' }
}

export function parseFlags(args, spec) {
  const flags = {}
  const explicit = new Set()
  const positional = []
  const byName = (name) => {
    for (const [key, def] of Object.entries(spec)) {
      if (key === name || def.alias === name) return [key, def]
    }
    return undefined
  }
  const byShort = (short) => Object.entries(spec).find(([, def]) => def.short === short)
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    let entry
    let inline
    if (arg.startsWith('--') && arg.length > 2) {
      const [name, ...rest] = arg.slice(2).split('=')
      inline = rest.length ? rest.join('=') : undefined
      entry = byName(name)
      if (!entry) throw new CliError(`unknown flag: --${name}`)
    } else if (arg.startsWith('-') && arg.length > 1 && arg !== '-') {
      const short = arg.slice(1, 2)
      inline = arg.length > 2 ? arg.slice(2).replace(/^=/, '') : undefined
      entry = byShort(short)
      if (!entry) throw new CliError(`unknown shorthand flag: '${short}' in ${arg}`)
    } else {
      positional.push(arg)
      continue
    }
    const [key, def] = entry
    explicit.add(key)
    if (def.type === 'bool') {
      // `--activate false` leaves `false` as a positional argument.
      if (inline === undefined) flags[key] = true
      else if (inline === 'true' || inline === 'false') flags[key] = inline === 'true'
      else throw new CliError(`invalid argument "${inline}" for "--${key}" flag`)
      continue
    }
    const value = inline ?? args[++i]
    if (value === undefined) throw new CliError(`flag needs an argument: --${key}`)
    if (def.type === 'array') (flags[key] ??= []).push(value)
    else flags[key] = value
  }
  for (const [key, def] of Object.entries(spec)) {
    if (!(key in flags))
      flags[key] = def.default ?? (def.type === 'array' ? [] : def.type === 'bool' ? false : '')
  }
  return { flags, explicit, positional }
}
