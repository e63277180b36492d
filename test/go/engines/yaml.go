package main

// A manifest read the way kubectl and Argo CD read it: sigs.k8s.io/yaml unmarshals with go-yaml
// v2 (YAML 1.1 rules) into interface{}, turns map[interface{}]interface{} into string-keyed maps,
// then marshals JSON. Besides the JSON, the answer names the Go type of every scalar, by path,
// so that a test can tell an int from a float and a string from a bool.
import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	yaml "gopkg.in/yaml.v2"
)

type yamlAnswer struct {
	JSON  interface{}       `json:"json,omitempty"`
	Types map[string]string `json:"types,omitempty"`
	Error string            `json:"error,omitempty"`
}

func readYAML(text string) yamlAnswer {
	var raw interface{}
	if err := yaml.Unmarshal([]byte(text), &raw); err != nil {
		return yamlAnswer{Error: err.Error()}
	}
	types := map[string]string{}
	converted, err := jsonable(raw, "", types)
	if err != nil {
		return yamlAnswer{Error: err.Error()}
	}
	// json.Marshal refuses +Inf and NaN, as kubectl's YAMLToJSON does.
	if _, err := json.Marshal(converted); err != nil {
		return yamlAnswer{Error: err.Error()}
	}
	return yamlAnswer{JSON: converted, Types: types}
}

func jsonable(value interface{}, path string, types map[string]string) (interface{}, error) {
	switch v := value.(type) {
	case map[interface{}]interface{}:
		out := make(map[string]interface{}, len(v))
		for key, item := range v {
			name, err := keyString(key)
			if err != nil {
				return nil, err
			}
			converted, err := jsonable(item, path+"/"+name, types)
			if err != nil {
				return nil, err
			}
			out[name] = converted
		}
		return out, nil
	case []interface{}:
		out := make([]interface{}, len(v))
		for i, item := range v {
			converted, err := jsonable(item, fmt.Sprintf("%s/%d", path, i), types)
			if err != nil {
				return nil, err
			}
			out[i] = converted
		}
		return out, nil
	case int:
		types[path] = "int"
		return int64(v), nil
	case nil:
		types[path] = "null"
		return nil, nil
	}
	types[path] = fmt.Sprintf("%T", value)
	return value, nil
}

// Non-string keys become strings, as sigs.k8s.io/yaml does for JSON objects.
func keyString(key interface{}) (string, error) {
	switch k := key.(type) {
	case string:
		return k, nil
	case int:
		return strconv.Itoa(k), nil
	case int64:
		return strconv.FormatInt(k, 10), nil
	case uint64:
		return strconv.FormatUint(k, 10), nil
	case bool:
		return strconv.FormatBool(k), nil
	case float64:
		if math.IsInf(k, 0) || math.IsNaN(k) {
			return "", fmt.Errorf("unsupported map key %v", k)
		}
		return strconv.FormatFloat(k, 'g', -1, 64), nil
	}
	return "", fmt.Errorf("unsupported map key of type %T", key)
}
