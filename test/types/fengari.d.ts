// The part of fengari 0.1.5 (Lua 5.3 in JavaScript) that test/config/gitops uses. fengari ships no types.
declare module 'fengari' {
  /** An opaque Lua state. */
  export type LuaState = { readonly __luaState: unique symbol }
  /** Lua strings are byte arrays in fengari. */
  export type LuaString = Uint8Array
  export type LuaCFunction = (L: LuaState) => number
  export type LuaHook = (L: LuaState, ar: unknown) => void

  export const lua: {
    LUA_OK: number
    LUA_MULTRET: number
    LUA_REGISTRYINDEX: number
    LUA_MASKCOUNT: number
    LUA_TNONE: number
    LUA_TNIL: number
    LUA_TBOOLEAN: number
    LUA_TNUMBER: number
    LUA_TSTRING: number
    LUA_TTABLE: number
    LUA_TFUNCTION: number
    lua_close(L: LuaState): void
    lua_gettop(L: LuaState): number
    lua_settop(L: LuaState, idx: number): void
    lua_pop(L: LuaState, n: number): void
    lua_pushvalue(L: LuaState, idx: number): void
    lua_pushnil(L: LuaState): void
    lua_pushboolean(L: LuaState, b: boolean): void
    lua_pushinteger(L: LuaState, n: number): void
    lua_pushnumber(L: LuaState, n: number): void
    lua_pushstring(L: LuaState, s: LuaString | string): LuaString
    lua_pushcfunction(L: LuaState, f: LuaCFunction): void
    lua_createtable(L: LuaState, narr: number, nrec: number): void
    lua_setfield(L: LuaState, idx: number, k: LuaString | string): void
    lua_getfield(L: LuaState, idx: number, k: LuaString | string): number
    lua_rawseti(L: LuaState, idx: number, n: number): void
    lua_setglobal(L: LuaState, name: LuaString | string): void
    lua_getglobal(L: LuaState, name: LuaString | string): number
    lua_next(L: LuaState, idx: number): number
    lua_type(L: LuaState, idx: number): number
    lua_typename(L: LuaState, t: number): LuaString
    lua_isinteger(L: LuaState, idx: number): boolean
    lua_tostring(L: LuaState, idx: number): LuaString | null
    lua_tonumber(L: LuaState, idx: number): number
    lua_toboolean(L: LuaState, idx: number): boolean
    lua_call(L: LuaState, nargs: number, nresults: number): void
    lua_pcall(L: LuaState, nargs: number, nresults: number, msgh: number): number
    lua_sethook(L: LuaState, hook: LuaHook | null, mask: number, count: number): void
  }

  export const lauxlib: {
    luaL_newstate(): LuaState
    luaL_loadstring(L: LuaState, s: LuaString): number
    luaL_requiref(L: LuaState, modname: LuaString | string, openf: LuaCFunction, glb: number): void
    luaL_error(L: LuaState, fmt: LuaString | string, ...args: unknown[]): number
  }

  export const lualib: {
    luaopen_base: LuaCFunction
    luaopen_package: LuaCFunction
    luaopen_table: LuaCFunction
    luaopen_os: LuaCFunction
    luaL_openlibs(L: LuaState): void
  }

  export function to_luastring(s: string, cache?: boolean): LuaString
  export function to_jsstring(
    s: LuaString,
    from?: number,
    to?: number,
    replacement_char?: boolean
  ): string
}
