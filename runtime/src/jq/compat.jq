# jq compatibility definitions, loaded after jaq's own, so they replace jaq's versions.
# Each one makes run_jq agree with jq (1.6 to 1.8) where jaq differs; see
# docs/jq-differences.md. Written without regular expressions, so they behave the same
# whatever regex engine is underneath.

# jq: null elements join as "", numbers and booleans as JSON; jaq wrote "null".
def join($x): reduce .[] as $i (null;
  (if . == null then "" else . + $x end) +
  ($i | if . == null then "" elif type == "string" then . else tojson end)) // "";

# jq accepts key/k/name/Name/K/Key and value/v; jaq only key and value.
def from_entries: reduce .[] as $x ({};
  . + { ($x | if .key == null then .k // .name // .Name // .K // .Key else .key end
            | if type == "string" then . else tojson end):
        ($x | if has("value") then .value else .v end) });

# jq returns the input unchanged when either side is not a string; jaq raised an error.
def ltrimstr($x): if type == "string" and ($x | type) == "string" and startswith($x)
  then .[($x | length):] else . end;
def rtrimstr($x): if type == "string" and ($x | type) == "string" and endswith($x) and ($x | length) > 0
  then .[:length - ($x | length)] else . end;

# Missing from jaq.
def leaf_paths: paths(scalars);
# Missing from jaq; added in jq 1.7 and 1.8, which AWP's engine runs (jq-wasm, jq 1.8.1).
# (`toarray` stays undefined: the reference jq of agc's oracle tests, 1.6, lacks it.)
def trimstr($x): ltrimstr($x) | rtrimstr($x);
def have_literal_numbers: true;

# jq's `gamma` is the logarithm of the gamma function (C `lgamma`); jaq's is `tgamma`.
def gamma: tgamma | fabs | log;

def @csv: if type == "array" then
    map(if type == "string" then "\"" + (split("\"") | join("\"\"")) + "\""
        elif type == "null" then ""
        elif type == "boolean" or type == "number" then tojson
        else error("\(type) (\(tojson)) is not valid in a csv row") end) | join(",")
  else error("\(type) (\(tojson)) cannot be csv-formatted, only an array can be") end;

def @tsv: if type == "array" then
    map(if type == "string" then split("\\") | join("\\\\") | split("\t") | join("\\t")
                               | split("\n") | join("\\n") | split("\r") | join("\\r")
        elif type == "null" then ""
        elif type == "boolean" or type == "number" then tojson
        else error("\(type) (\(tojson)) is not valid in a tsv row") end) | join("\t")
  else error("\(type) (\(tojson)) cannot be tsv-formatted, only an array can be") end;
