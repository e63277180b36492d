// Runs an Argo CD health script the way Argo CD runs it, with fengari standing in for gopher-lua.
// Facts: https://github.com/argoproj/argo-cd/blob/master/util/lua/lua.go (VM, obj, result)
// and argoproj/gitops-engine pkg/health/health.go (deletion).
import { lauxlib, lua, lualib, to_jsstring, to_luastring } from 'fengari'
import type { LuaState } from 'fengari'
import luaparse from 'luaparse'

/** What Argo CD keeps of a health result: status and message only. */
export interface ArgoHealth {
  status?: string
  message?: string
}

// The only statuses Argo CD accepts from a script (case-sensitive).
export const ARGO_HEALTH_STATUSES = [
  'Unknown',
  'Progressing',
  'Suspended',
  'Healthy',
  'Degraded',
  'Missing'
] as const

export const INVALID_HEALTH_STATUS = 'Lua returned an invalid health status'
export const PENDING_DELETION = 'Pending deletion'
export const HOOK_FINALIZER = 'argocd.argoproj.io/hook-finalizer'

// guess: Argo CD stops a script after a 1-second context timeout; an instruction budget is
// the deterministic stand-in, so a runaway script fails here without timing anything.
const INSTRUCTION_BUDGET = 10_000_000

/** Throws when the source is not Lua 5.1 (gopher-lua rejects 5.3 syntax that fengari accepts). */
export function assertLua51(source: string): void {
  luaparse.parse(source, { luaVersion: '5.1', comments: false })
}

const PENDING_DELETION_HEALTH: ArgoHealth = { status: 'Progressing', message: PENDING_DELETION }

/**
 * What the Argo CD controller shows (v3.0–v3.5.x): an object being deleted is
 * `Progressing` / `Pending deletion` before any custom script runs, unless it carries the hook
 * finalizer.
 */
export function argoControllerHealth(script: string, obj: unknown): ArgoHealth {
  return skipsScript(obj) ? { ...PENDING_DELETION_HEALTH } : runArgoHealthScript(script, obj)
}

/** The controller's view given the script's result, for engines that run the script elsewhere. */
export function controllerView(obj: unknown, scriptResult: ArgoHealth): ArgoHealth {
  return skipsScript(obj) ? { ...PENDING_DELETION_HEALTH } : scriptResult
}

function skipsScript(obj: unknown): boolean {
  const metadata = isRecord(obj) && isRecord(obj.metadata) ? obj.metadata : {}
  const finalizers = Array.isArray(metadata.finalizers) ? metadata.finalizers : []
  const deleting = metadata.deletionTimestamp !== undefined && metadata.deletionTimestamp !== null
  return deleting && !finalizers.includes(HOOK_FINALIZER)
}

/** The script's result as Argo CD reads it; errors become `Unknown` with their text. */
export function runArgoHealthScript(script: string, obj: unknown): ArgoHealth {
  const L = lauxlib.luaL_newstate()
  try {
    openArgoLibraries(L)
    pushJson(L, obj)
    lua.lua_setglobal(L, 'obj')
    lua.lua_sethook(
      L,
      (state) => {
        lauxlib.luaL_error(state, 'script exceeded its instruction budget')
      },
      lua.LUA_MASKCOUNT,
      INSTRUCTION_BUDGET
    )
    if (lauxlib.luaL_loadstring(L, to_luastring(script)) !== lua.LUA_OK) {
      return { status: 'Unknown', message: errorText(L) }
    }
    if (lua.lua_pcall(L, 0, 1, 0) !== lua.LUA_OK) {
      return { status: 'Unknown', message: errorText(L) }
    }
    return readResult(L)
  } finally {
    lua.lua_close(L)
  }
}

// Package, base and table, plus an os with only time and date; no string, math, io, debug
// or coroutine. luaL_openlibs is never called.
function openArgoLibraries(L: LuaState): void {
  lauxlib.luaL_requiref(L, 'package', lualib.luaopen_package, 1)
  lauxlib.luaL_requiref(L, '_G', lualib.luaopen_base, 1)
  lauxlib.luaL_requiref(L, 'table', lualib.luaopen_table, 1)
  lua.lua_settop(L, 0)

  // Open the full os library off to the side and copy only the safe functions.
  lua.lua_pushcfunction(L, lualib.luaopen_os)
  lua.lua_call(L, 0, 1)
  lua.lua_createtable(L, 0, 2)
  for (const name of ['time', 'date']) {
    lua.lua_getfield(L, -2, name)
    lua.lua_setfield(L, -2, name)
  }
  // Argo CD preloads the same subset, so require("os") returns it too.
  lua.lua_pushvalue(L, -1)
  lua.lua_setglobal(L, 'os')
  lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, '_LOADED')
  lua.lua_pushvalue(L, -2)
  lua.lua_setfield(L, -2, 'os')
  lua.lua_settop(L, 0)
}

// Objects become tables, arrays 1-based sequences without their null elements, null values
// are absent; integers in int32 range are Lua integers (fengari cannot push larger ones), all
// other numbers floats, as gopher-lua's float64 numbers compare the same way.
function pushJson(L: LuaState, value: unknown): void {
  if (value === null || value === undefined) {
    lua.lua_pushnil(L)
  } else if (typeof value === 'string') {
    lua.lua_pushstring(L, to_luastring(value))
  } else if (typeof value === 'boolean') {
    lua.lua_pushboolean(L, value)
  } else if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= -2147483648 && value <= 2147483647) {
      lua.lua_pushinteger(L, value)
    } else {
      lua.lua_pushnumber(L, value)
    }
  } else if (Array.isArray(value)) {
    const present = value.filter((element) => element !== null && element !== undefined)
    lua.lua_createtable(L, present.length, 0)
    present.forEach((element, index) => {
      pushJson(L, element)
      lua.lua_rawseti(L, -2, index + 1)
    })
  } else if (isRecord(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== null && v !== undefined)
    lua.lua_createtable(L, 0, entries.length)
    for (const [key, field] of entries) {
      pushJson(L, field)
      lua.lua_setfield(L, -2, to_luastring(key))
    }
  } else {
    throw new Error(`cannot pass a ${typeof value} to Lua`)
  }
}

// A table is JSON-encoded and decoded into {status, message}; every other field is dropped.
function readResult(L: LuaState): ArgoHealth {
  const type = lua.lua_type(L, -1)
  if (type === lua.LUA_TNIL) return {}
  if (type !== lua.LUA_TTABLE) {
    const typeName = to_jsstring(lua.lua_typename(L, type))
    return { status: 'Unknown', message: `expect table output from Lua script, not ${typeName}` }
  }
  // An empty table encodes as [] and Argo CD treats it as an empty status.
  // guess: a table with only array elements decodes the same way.
  if (!hasStringKey(L)) return {}

  const { status, message, error } = readHealthFields(L)
  if (error) {
    // guess: Go's json.Unmarshal fails on a non-string status or message; the controller then
    // shows Unknown with the decoding error.
    return { status: 'Unknown', message: error }
  }
  const isValid = (ARGO_HEALTH_STATUSES as readonly string[]).includes(status ?? '')
  if (!isValid) return { status: 'Unknown', message: INVALID_HEALTH_STATUS }
  const health: ArgoHealth = { status }
  if (message !== undefined) health.message = message
  return health
}

function hasStringKey(L: LuaState): boolean {
  lua.lua_pushnil(L)
  while (lua.lua_next(L, -2) !== 0) {
    const keyIsString = lua.lua_type(L, -2) === lua.LUA_TSTRING
    lua.lua_pop(L, 1)
    if (keyIsString) {
      lua.lua_pop(L, 1)
      return true
    }
  }
  return false
}

/**
 * status and message as Go's encoding/json decodes them into Argo CD's HealthStatus: the
 * keys in sorted order (json.Marshal of a map), each matching a field by name case-insensitively,
 * so `Status` or `statuS` set status too, and a later key wins.
 */
function readHealthFields(L: LuaState): { status?: string; message?: string; error?: string } {
  const fields: { key: string; type: number; text: string }[] = []
  lua.lua_pushnil(L)
  while (lua.lua_next(L, -2) !== 0) {
    if (lua.lua_type(L, -2) === lua.LUA_TSTRING) {
      const type = lua.lua_type(L, -1)
      const text = type === lua.LUA_TSTRING ? luaString(L, -1) : ''
      fields.push({ key: luaString(L, -2), type, text })
    }
    lua.lua_pop(L, 1)
  }
  fields.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  const read: { status?: string; message?: string; error?: string } = {}
  for (const { key, type, text } of fields) {
    const name = key.toLowerCase()
    if (name !== 'status' && name !== 'message') continue
    if (type !== lua.LUA_TSTRING) {
      const typeName = to_jsstring(lua.lua_typename(L, type))
      read.error ??= `cannot decode ${typeName} into the health field ${name}`
      continue
    }
    read[name] = text
  }
  return read
}

function errorText(L: LuaState): string {
  return luaString(L, -1) || 'unknown Lua error'
}

function luaString(L: LuaState, idx: number): string {
  const bytes = lua.lua_tostring(L, idx)
  return bytes === null ? '' : to_jsstring(bytes)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
