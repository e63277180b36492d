package main

// An Argo CD health script in gopher-lua, set up as Argo CD's util/lua/lua.go sets it up
// (https://github.com/argoproj/argo-cd/blob/master/util/lua/lua.go).
//
// What differs from Argo CD, because Debian ships gopher-lua of 2017-09 (eb1c729), not v1.1.x:
//   - LTable.Append stores nil there; v1.1.x skips it. decodeValue skips null array elements
//     itself, so obj has the v1.1.x shape (the array closes up).
//   - the 2017 parser does not know `goto` (v1.1.2 does); the rules do not use it.
//   - the result is JSON-encoded here by jsonValueOf, not by layeh.com/gopher-json (not packaged).
import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

type healthAnswer struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
}

// The only statuses Argo CD accepts from a script.
var validStatuses = map[string]bool{
	"Unknown": true, "Progressing": true, "Suspended": true,
	"Healthy": true, "Degraded": true, "Missing": true,
}

const invalidHealthStatus = "Lua returned an invalid health status"

func runHealthScript(script string, obj interface{}) healthAnswer {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	// Package, base and table, plus a safe os; never OpenLibs (no useOpenLibs).
	libraries := []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.OsLibName, openSafeOs},
	}
	for _, lib := range libraries {
		p := lua.P{Fn: L.NewFunction(lib.open), NRet: 0, Protect: true}
		if err := L.CallByParam(p, lua.LString(lib.name)); err != nil {
			return unknown(err)
		}
	}
	L.PreloadModule(lua.OsLibName, safeOsLoader)
	// A 1-second context timeout per evaluation.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	L.SetContext(ctx)
	L.SetGlobal("obj", decodeValue(L, obj))
	if err := L.DoString(script); err != nil {
		return unknown(err)
	}
	return readResult(L.Get(-1))
}

// Runtime errors become Unknown with the error text, stack trace removed.
func unknown(err error) healthAnswer {
	text := err.Error()
	if at := strings.Index(text, "\nstack traceback:"); at >= 0 {
		text = text[:at]
	}
	return healthAnswer{Status: "Unknown", Message: text}
}

var safeOsFuncs = map[string]lua.LGFunction{}

func init() {
	// Copy os.time and os.date out of a full os library, as Argo CD's safe os keeps only these.
	full := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer full.Close()
	full.Push(full.NewFunction(lua.OpenOs))
	full.Call(0, 1)
	osTable := full.Get(-1).(*lua.LTable)
	for _, name := range []string{"time", "date"} {
		safeOsFuncs[name] = osTable.RawGetString(name).(*lua.LFunction).GFunction
	}
}

func openSafeOs(L *lua.LState) int {
	L.Push(L.RegisterModule(lua.OsLibName, safeOsFuncs))
	return 1
}

// require("os") returns the same subset.
func safeOsLoader(L *lua.LState) int {
	L.Push(L.SetFuncs(L.NewTable(), safeOsFuncs))
	return 1
}

// Objects become string-keyed tables, arrays sequences without their null elements,
// null values are absent, numbers are float64.
func decodeValue(L *lua.LState, value interface{}) lua.LValue {
	switch v := value.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case float64:
		return lua.LNumber(v)
	case []interface{}:
		arr := L.CreateTable(len(v), 0)
		for _, item := range v {
			if item != nil {
				arr.Append(decodeValue(L, item))
			}
		}
		return arr
	case map[string]interface{}:
		tbl := L.CreateTable(0, len(v))
		for key, item := range v {
			tbl.RawSetString(key, decodeValue(L, item))
		}
		return tbl
	}
	panic(fmt.Sprintf("cannot hand a %T to Lua", value))
}

// A table is JSON-encoded and decoded into {status, message}; an empty table encodes as
// [] and gives an empty status; nil gives an empty status; any other type is an error.
func readResult(value lua.LValue) healthAnswer {
	switch value.Type() {
	case lua.LTNil:
		return healthAnswer{}
	case lua.LTTable:
	default:
		return healthAnswer{Status: "Unknown",
			Message: fmt.Sprintf("expect table output from Lua script, not %s", value.Type().String())}
	}
	encoded, err := jsonValueOf(value)
	if err != nil {
		return unknown(err)
	}
	if _, isArray := encoded.([]interface{}); isArray {
		return healthAnswer{}
	}
	bytes, err := json.Marshal(encoded)
	if err != nil {
		return unknown(err)
	}
	var health healthAnswer
	if err := json.Unmarshal(bytes, &health); err != nil {
		return unknown(err)
	}
	if !validStatuses[health.Status] {
		return healthAnswer{Status: "Unknown", Message: invalidHealthStatus}
	}
	return health
}

// guess: gopher-json's rules: a table with a positive MaxN is an array, one with only string
// keys an object, an empty one an array; functions and mixed keys cannot be encoded.
func jsonValueOf(value lua.LValue) (interface{}, error) {
	switch v := value.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(v), nil
	case lua.LNumber:
		return float64(v), nil
	case lua.LString:
		return string(v), nil
	case *lua.LTable:
		return tableValueOf(v)
	}
	return nil, fmt.Errorf("cannot encode %s to JSON", value.Type().String())
}

func tableValueOf(table *lua.LTable) (interface{}, error) {
	if n := table.MaxN(); n > 0 {
		items := make([]interface{}, 0, n)
		for i := 1; i <= n; i++ {
			item, err := jsonValueOf(table.RawGetInt(i))
			if err != nil {
				return nil, err
			}
			items = append(items, item)
		}
		return items, nil
	}
	fields := map[string]interface{}{}
	var failure error
	table.ForEach(func(key, item lua.LValue) {
		name, isString := key.(lua.LString)
		if !isString {
			failure = fmt.Errorf("cannot encode mixed or invalid key types")
			return
		}
		converted, err := jsonValueOf(item)
		if err != nil {
			failure = err
		}
		fields[string(name)] = converted
	})
	if failure != nil {
		return nil, failure
	}
	if len(fields) == 0 {
		return []interface{}{}, nil
	}
	return fields, nil
}
