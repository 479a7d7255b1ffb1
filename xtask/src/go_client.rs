//! The Go step of `cargo xtask lint`: openapi-generator's Go client of each
//! service (the jar of the pinned `openapi-generator-cli` in `.tools/venv`) builds
//! and vets offline with the standard library alone, and decodes the bodies
//! `decode_check.py` built from the YAML for every component schema reachable
//! from a response (unknown member, unknown enum value, null, the other form of
//! a value with two forms) into that component's Go type.
//!
//! Needs `go` and `java` on `PATH`; without them it says "skipped" and passes,
//! unless `VIDPLAT_REQUIRE_GO=1` (`.ci/run` sets it), which makes it fail.

use crate::services::SERVICES;
use anyhow::{bail, Context, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The generated clients' modules are `github.com/<GIT_USER_ID>/<service>`.
const GIT_USER_ID: &str = "vidplat";

/// One body decode_check.py wrote: `{"schema", "disturbance", "body", "kept"}`
/// (the check program reads `kept`).
#[derive(Debug, serde::Deserialize)]
pub struct Body {
    pub schema: String,
    pub disturbance: String,
    pub body: serde_json::Value,
}

/// The unknown member decode_check.py adds to every object of an `unknown member` body.
const UNKNOWN_MEMBER: &str = "x_field_this_sdk_does_not_know";

/// The case the bodies must hold (else a change to
/// decode_check.py could drop it unseen): a bulk registration's item in both of
/// its forms, the id object carrying an unknown member. With a `oneOf`, the
/// client needed a module outside the standard library and rejected that object.
pub(crate) fn bulk_registered_id_cases(list: &[Body]) -> Result<()> {
    let item = |disturbance: &str| {
        list.iter()
            .find(|b| b.schema == "BulkRegistration" && b.disturbance == disturbance)
            .map(|b| &b.body["responses"][0])
    };
    match (item("unknown member"), item("other form")) {
        (Some(object), Some(serde_json::Value::String(_))) if object.get(UNKNOWN_MEMBER).is_some() => Ok(()),
        (object, string) => bail!(
            "the vms bodies lack BulkRegistration with an id object carrying an unknown member \
             (found {object:?}) or with an id string (found {string:?})"
        ),
    }
}

/// Makes a missing `go` or `java` an error, for the Go step and the TypeScript client's.
pub(crate) const REQUIRE_GO: &str = "VIDPLAT_REQUIRE_GO";
const GO_TOOLS: [&str; 2] = ["go", "java"];
const GO_STEP: &str = "go clients";

/// Whether `tool` runs (asked for its version).
pub(crate) fn on_path(tool: &str) -> bool {
    let arg = match tool {
        "java" => "-version",
        "go" => "version",
        _ => "--version",
    };
    Command::new(tool)
        .arg(arg)
        .output()
        .is_ok_and(|out| out.status.success())
}

/// Where the step finds its tools and keeps its caches.
pub struct Tools {
    /// The pinned `openapi-generator-cli` (`GENERATOR`) of the tools venv.
    pub generator: PathBuf,
    /// Go's caches and settings (`.tools/go`), never the user's home.
    pub go_home: PathBuf,
}

/// Generates the three Go clients under `out/go`, builds and vets them offline in
/// one Go workspace, and runs each one's decode check over the bodies in
/// `bodies/<service>-bodies.json`.
pub fn run_all(tools: &Tools, out: &Path, bodies: &Path) -> Result<()> {
    let started = Instant::now();
    if !crate::process::tools_found(GO_STEP, &GO_TOOLS, on_path, REQUIRE_GO)? {
        return Ok(());
    }
    let go_version = String::from_utf8_lossy(&go(tools).arg("version").output()?.stdout)
        .trim()
        .to_owned();
    let out = out.join("go");
    std::fs::create_dir_all(&out)?;

    // One JVM for the three (`batch`): about half the time of three `generate`s.
    let mut configs = Vec::new();
    for service in &SERVICES {
        let config = out.join(format!("{}.yaml", service.name));
        std::fs::write(&config, batch_config(service.name, &service.yaml_path(), &out))?;
        configs.push(config);
    }
    let at = Instant::now();
    let log = out.join("generate.log");
    let status = Command::new(&tools.generator)
        // A short run: the JIT's first tier alone saves about 1.5 s of its 4.
        .env("JAVA_OPTS", "-XX:TieredStopAtLevel=1")
        .args(["batch", "--fail-fast"])
        .args(&configs)
        .stdout(std::fs::File::create(&log)?)
        .stderr(std::fs::File::create(out.join("generate.err"))?)
        .status()
        .context("starting openapi-generator-cli")?;
    if !status.success() {
        bail!(
            "openapi-generator-cli batch (Go clients) failed ({status}); see {} and generate.err beside it",
            log.display()
        );
    }
    let generated = at.elapsed();

    let mut counts = Vec::new();
    let mut go_lines = Vec::new();
    for service in &SERVICES {
        let name = service.name;
        let module = out.join(name);
        let file = bodies.join(format!("{name}-bodies.json"));
        let text = std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
        let list: Vec<Body> = serde_json::from_str(&text).with_context(|| format!("parsing {}", file.display()))?;
        if name == "vms" {
            bulk_registered_id_cases(&list)?;
        }
        let targets =
            go_targets(&service.load()?, &list, &go_structs(&module)?).with_context(|| format!("go client {name}"))?;
        let program = module.join(format!("{name}check"));
        std::fs::create_dir_all(&program)?;
        std::fs::write(program.join("main.go"), check_program(name, &targets))?;
        std::fs::write(program.join("bodies.json"), &text)?;
        let models = targets.iter().filter(|(_, t)| matches!(t, Target::Model(_))).count();
        counts.push((list.len(), models, targets.len() - models));
        let go_mod = std::fs::read_to_string(module.join("go.mod"))?;
        go_lines.extend(go_mod.lines().filter_map(|l| l.strip_prefix("go ")).map(str::to_owned));
    }
    // One workspace: one `go build` and one `go vet` take the three clients in
    // parallel (here 13 s against 18 s for three modules one after the other with
    // an empty cache, 1.4 s against 5.3 s with a warm one).
    std::fs::write(out.join("go.work"), go_work(&go_lines))?;
    let patterns: Vec<String> = SERVICES.iter().map(|s| format!("./{}/...", s.name)).collect();
    let at = Instant::now();
    let work = out.join("go.work");
    crate::process::run(
        go(tools)
            .env("GOWORK", &work)
            .current_dir(&out)
            .args(["build", "-o", "bin/"])
            .args(&patterns),
    )?;
    let built = at.elapsed();
    let at = Instant::now();
    crate::process::run(
        go(tools)
            .env("GOWORK", &work)
            .current_dir(&out)
            .arg("vet")
            .args(&patterns),
    )?;
    let vetted = at.elapsed();
    let at = Instant::now();
    for service in &SERVICES {
        let name = service.name;
        let report = Command::new(out.join("bin").join(format!("{name}check")))
            .arg(out.join(name).join(format!("{name}check/bodies.json")))
            .output()
            .with_context(|| format!("starting {name}check"))?;
        let stdout = String::from_utf8_lossy(&report.stdout);
        if !report.status.success() {
            bail!(
                "go client {name}: decode check failed ({}):\n{stdout}{}",
                report.status,
                String::from_utf8_lossy(&report.stderr)
            );
        }
        print!("{stdout}");
    }
    let checked = at.elapsed();
    println!(
        "go client vms: a bulk registration's item decodes in both forms, the id object carrying an unknown \
         member (kept) and the id string"
    );
    let summary: Vec<String> = SERVICES
        .iter()
        .zip(&counts)
        .map(|(s, (bodies, models, maps))| {
            format!(
                "{} {bodies} bodies into {models} model types and {maps} free-form maps",
                s.name
            )
        })
        .collect();
    println!(
        "go clients ({go_version}, {GENERATOR}) build and vet offline with the standard library alone, \
         and decode {} bodies ({}); generated in {generated:.1?}, built in {built:.1?}, vetted in {vetted:.1?}, \
         checked in {checked:.1?}: {:.1?} in all",
        counts.iter().map(|c| c.0).sum::<usize>(),
        summary.join("; "),
        started.elapsed()
    );
    Ok(())
}

/// The Go workspace of the three clients, at the newest `go` line of their go.mod
/// files (Go 1.21 and later refuse a go.work older than a module it uses).
fn go_work(go_lines: &[String]) -> String {
    let newest = go_lines
        .iter()
        .max_by_key(|v| v.split('.').map(|n| n.parse::<u32>().unwrap_or(0)).collect::<Vec<_>>())
        .map_or("1.18", String::as_str);
    let uses: String = SERVICES.iter().map(|s| format!("\t./{}\n", s.name)).collect();
    format!("go {newest}\n\nuse (\n{uses})\n")
}

/// The pinned openapi-generator: its PyPI package bundles the jar (in `lint::PIP_TOOLS`).
pub const GENERATOR: &str = "openapi-generator-cli==7.26.0";

/// A `go` command that works offline and leaves the user's home alone: no module
/// proxy (`GOPROXY=off`: a module outside the standard library fails the build),
/// no toolchain download, no user `go env` file, and caches inside `.tools/go`.
/// `-mod=readonly`, as workspace mode demands (it refuses `-mod=mod`).
fn go(tools: &Tools) -> Command {
    let dir = &tools.go_home;
    let mut command = Command::new("go");
    command
        .env("GOPROXY", "off")
        .env("GOFLAGS", "-mod=readonly")
        .env("GOTOOLCHAIN", "local")
        .env("GOENV", "off")
        .env("GOCACHE", dir.join("cache"))
        .env("GOPATH", dir.join("path"))
        .env("GOMODCACHE", dir.join("path/pkg/mod"))
        // Go 1.23 and later keep telemetry counters under the user's configuration directory.
        .env("XDG_CONFIG_HOME", dir.join("config"));
    command
}

/// openapi-generator's `batch` configuration of one service's Go client: no
/// tests or docs (the generated tests import testify, a module outside the
/// standard library that `go vet ./...` would need).
fn batch_config(name: &str, yaml: &Path, out: &Path) -> String {
    format!(
        "generatorName: go\n\
         inputSpec: {yaml}\n\
         outputDir: {out}\n\
         gitHost: github.com\n\
         gitUserId: {GIT_USER_ID}\n\
         gitRepoId: {name}\n\
         globalProperties:\n  apiTests: \"false\"\n  modelTests: \"false\"\n  apiDocs: \"false\"\n  modelDocs: \"false\"\n\
         additionalProperties:\n  packageName: {name}\n  withGoMod: true\n",
        yaml = serde_json::to_string(&yaml.display().to_string()).expect("a string"),
        out = serde_json::to_string(&out.join(name).display().to_string()).expect("a string"),
    )
}

/// What a component schema decodes into in the Go client.
#[derive(Debug, PartialEq)]
pub enum Target {
    /// The client's model type of that name.
    Model(String),
    /// A free-form object (`additionalProperties` and no `properties`): the client
    /// has no model for it and reads a member of that schema as `map[string]interface{}`.
    FreeForm,
}

/// The struct types the generated client declares (`type X struct {` in `model_*.go`).
fn go_structs(module: &Path) -> Result<BTreeSet<String>> {
    let mut structs = BTreeSet::new();
    for entry in std::fs::read_dir(module)? {
        let path = entry?.path();
        let file = path.file_name().unwrap_or_default().to_string_lossy();
        if !(file.starts_with("model_") && file.ends_with(".go")) {
            continue;
        }
        for line in std::fs::read_to_string(&path)?.lines() {
            if let Some(name) = line.strip_prefix("type ").and_then(|l| l.strip_suffix(" struct {")) {
                structs.insert(name.to_owned());
            }
        }
    }
    Ok(structs)
}

/// Each schema of `bodies` with the Go type it decodes into. openapi-generator
/// keeps a component's name as its Go type's name (the YAML's component names are
/// PascalCase, CONVENTIONS.md); a schema with members and no such type is an error.
pub fn go_targets(
    spec: &serde_json::Value,
    bodies: &[Body],
    structs: &BTreeSet<String>,
) -> Result<Vec<(String, Target)>> {
    let schemas: BTreeSet<&str> = bodies.iter().map(|b| b.schema.as_str()).collect();
    schemas
        .into_iter()
        .map(|schema| {
            if structs.contains(schema) {
                return Ok((schema.to_owned(), Target::Model(schema.to_owned())));
            }
            let component = &spec["components"]["schemas"][schema];
            if component.get("properties").is_none() && component.get("additionalProperties").is_some() {
                return Ok((schema.to_owned(), Target::FreeForm));
            }
            bail!("no Go type {schema} for the component schema {schema}, which has members")
        })
        .collect()
}

/// The Go `main` package that decodes each body of `bodies.json` into its
/// component's Go type of the `package` client, re-encodes it, and compares.
pub fn check_program(package: &str, targets: &[(String, Target)]) -> String {
    let mut cases = String::new();
    for (schema, target) in targets {
        let go_type = match target {
            Target::Model(name) => format!("{package}.{name}"),
            Target::FreeForm => "map[string]interface{}".to_owned(),
        };
        cases.push_str(&format!("\tcase {schema:?}:\n\t\treturn roundtrip[{go_type}](body)\n"));
    }
    CHECK_PROGRAM
        .replace("{package}", package)
        .replace("{module}", &format!("github.com/{GIT_USER_ID}/{package}"))
        .replace("{cases}", &cases)
        .replace("{unknown_member}", UNKNOWN_MEMBER)
}

const CHECK_PROGRAM: &str = r#"// Code generated by `cargo xtask lint` (xtask/src/go_client.rs); DO NOT EDIT.

// Decodes each body of the JSON file named by its argument into its component's
// type, as a user's call would, and encodes the value again: the re-encoding must
// give the body back, except that a member null in the body may be absent (the
// client reads a nullable reference to an object as a map, nil when null), and
// the unknown member may be absent from an object whose schema declares no
// additionalProperties (its model drops what it does not know; `kept` is the body
// with the unknown member only where it must stay).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"

	{package} "{module}"
)

const unknownMember = "{unknown_member}"

type item struct {
	Schema      string          `json:"schema"`
	Disturbance string          `json:"disturbance"`
	Body        json.RawMessage `json:"body"`
	Kept        json.RawMessage `json:"kept"`
}

// roundtrip decodes body into a T and encodes that again.
func roundtrip[T any](body []byte) ([]byte, error) {
	var value T
	if err := json.Unmarshal(body, &value); err != nil {
		return nil, err
	}
	return json.Marshal(&value)
}

func decode(schema string, body []byte) ([]byte, error) {
	switch schema {
{cases}	}
	return nil, fmt.Errorf("no Go type for schema %s", schema)
}

type counts struct{ unknownSent, unknownKept, nullsDropped int }

// differs says where got departs from sent ("" where it does not).
func differs(sent, got, kept interface{}, at string, n *counts) string {
	switch s := sent.(type) {
	case map[string]interface{}:
		g, ok := got.(map[string]interface{})
		if !ok {
			return at + " (not an object)"
		}
		k, _ := kept.(map[string]interface{})
		keys := make([]string, 0, len(s))
		for key := range s {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			value, present := g[key]
			_, mustKeep := k[key]
			if key == unknownMember {
				n.unknownSent++
				if present {
					n.unknownKept++
				}
			}
			if !present {
				if s[key] == nil {
					n.nullsDropped++
					continue
				}
				if key == unknownMember && !mustKeep {
					continue
				}
				return at + "." + key + " (dropped)"
			}
			if d := differs(s[key], value, k[key], at+"."+key, n); d != "" {
				return d
			}
		}
		for key := range g {
			if _, ok := s[key]; !ok {
				return at + "." + key + " (not sent)"
			}
		}
		return ""
	case []interface{}:
		g, ok := got.([]interface{})
		if !ok || len(g) != len(s) {
			return at + " (not the same array)"
		}
		k, _ := kept.([]interface{})
		for i := range s {
			var ki interface{}
			if i < len(k) {
				ki = k[i]
			}
			if d := differs(s[i], g[i], ki, fmt.Sprintf("%s[%d]", at, i), n); d != "" {
				return d
			}
		}
		return ""
	default:
		if !reflect.DeepEqual(sent, got) {
			return at
		}
		return ""
	}
}

func compact(body []byte) string {
	var out bytes.Buffer
	if json.Compact(&out, body) != nil {
		return string(body)
	}
	return out.String()
}

func main() {
	text, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var items []item
	if err := json.Unmarshal(text, &items); err != nil {
		panic(err)
	}
	failures := 0
	var n counts
	for _, it := range items {
		again, err := decode(it.Schema, it.Body)
		if err != nil {
			fmt.Printf("  %s (%s): %v\n    sent %s\n", it.Schema, it.Disturbance, err, compact(it.Body))
			failures++
			continue
		}
		var sent, got, kept interface{}
		if json.Unmarshal(it.Body, &sent) != nil || json.Unmarshal(again, &got) != nil || json.Unmarshal(it.Kept, &kept) != nil {
			panic("not JSON")
		}
		if at := differs(sent, got, kept, "body", &n); at != "" {
			fmt.Printf("  %s (%s): re-encoded differs at %s\n    sent %s\n    got  %s\n", it.Schema, it.Disturbance, at, compact(it.Body), again)
			failures++
		}
	}
	if failures > 0 {
		fmt.Printf("go client {package}: %d of %d bodies failed\n", failures, len(items))
		os.Exit(1)
	}
	fmt.Printf("go client {package}: %d bodies decode and re-encode (unknown members kept: %d of %d, "+
		"the others in objects that declare no additionalProperties; null members dropped: %d)\n",
		len(items), n.unknownKept, n.unknownSent, n.nullsDropped)
}
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bodies(schemas: &[&str]) -> Vec<Body> {
        schemas
            .iter()
            .map(|s| Body {
                schema: (*s).to_owned(),
                disturbance: "unknown member".into(),
                body: json!({}),
            })
            .collect()
    }

    #[test]
    fn the_vms_bodies_must_hold_both_forms_of_a_bulk_registration_item() {
        let body = |disturbance: &str, item: serde_json::Value| Body {
            schema: "BulkRegistration".into(),
            disturbance: disturbance.into(),
            body: json!({ "responses": [item] }),
        };
        let object = json!({"id": "sample", UNKNOWN_MEMBER: {"nested": [1]}});
        bulk_registered_id_cases(&[
            body("unknown member", object.clone()),
            body("other form", json!("sample")),
        ])
        .unwrap();
        for list in [
            vec![body("unknown member", object.clone())],
            vec![
                body("unknown member", json!({"id": "sample"})),
                body("other form", json!("sample")),
            ],
            vec![
                body("unknown member", object),
                body("other form", json!({"id": "sample"})),
            ],
        ] {
            let error = bulk_registered_id_cases(&list).unwrap_err().to_string();
            assert!(error.contains("BulkRegistration"), "{error}");
        }
    }

    #[test]
    fn the_check_program_decodes_each_component_into_its_own_type() {
        let spec = json!({"components": {"schemas": {
            "BulkRegistration": {"type": "object", "properties": {"responses": {"type": "array"}}},
            "Task": {"type": "object", "properties": {"id": {"type": "integer"}}},
            "DashConfig": {"type": "object", "additionalProperties": true},
        }}});
        let structs: BTreeSet<String> = ["BulkRegistration", "Task", "RegisteredId"].map(String::from).into();
        let list = bodies(&["Task", "BulkRegistration", "Task", "DashConfig", "BulkRegistration"]);
        let targets = go_targets(&spec, &list, &structs).unwrap();
        assert_eq!(
            targets,
            [
                ("BulkRegistration".to_owned(), Target::Model("BulkRegistration".into())),
                ("DashConfig".to_owned(), Target::FreeForm),
                ("Task".to_owned(), Target::Model("Task".into())),
            ]
        );
        let program = check_program("vms", &targets);
        assert!(program.contains("\tvms \"github.com/vidplat/vms\"\n"), "{program}");
        for case in [
            "\tcase \"BulkRegistration\":\n\t\treturn roundtrip[vms.BulkRegistration](body)\n",
            "\tcase \"Task\":\n\t\treturn roundtrip[vms.Task](body)\n",
            "\tcase \"DashConfig\":\n\t\treturn roundtrip[map[string]interface{}](body)\n",
        ] {
            assert!(program.contains(case), "{case} missing from:\n{program}");
        }
        assert_eq!(program.matches("\tcase \"").count(), 3, "one case per component");
        assert!(!program.contains("{package}") && !program.contains("{cases}") && !program.contains("{module}"));
        // The unknown member the program tolerates dropping is the one decode_check.py adds.
        let python =
            std::fs::read_to_string(crate::services::repo_root().join("xtask/python/decode_check.py")).unwrap();
        assert!(python.contains(&format!("UNKNOWN_MEMBER = \"{UNKNOWN_MEMBER}\"")));
        assert!(program.contains(&format!("const unknownMember = \"{UNKNOWN_MEMBER}\"")));
    }

    #[test]
    fn a_component_with_members_but_no_go_type_is_an_error() {
        let spec = json!({"components": {"schemas": {
            "Task": {"type": "object", "properties": {"id": {"type": "integer"}}},
        }}});
        let error = go_targets(&spec, &bodies(&["Task"]), &BTreeSet::new()).unwrap_err();
        assert!(error.to_string().contains("no Go type Task"), "{error}");
    }

    /// Whether the Go step runs: `Ok(None)` when it does, `Ok(Some(why))` when it is
    /// skipped (a tool is missing), an error when a tool is missing under `require`.
    fn skipped(on_path: impl Fn(&str) -> bool, require: bool) -> Result<Option<String>> {
        crate::process::skipped_without(GO_STEP, &GO_TOOLS, on_path, REQUIRE_GO, require)
    }

    #[test]
    fn without_go_or_java_the_step_is_skipped_unless_required() {
        assert_eq!(skipped(|_| true, true).unwrap(), None);
        assert_eq!(
            skipped(|tool| tool != "go", false).unwrap().as_deref(),
            Some("go not on PATH")
        );
        assert_eq!(
            skipped(|_| false, false).unwrap().as_deref(),
            Some("go and java not on PATH")
        );
        let error = skipped(|tool| tool != "java", true).unwrap_err().to_string();
        assert!(
            error.contains("java not on PATH") && error.contains("VIDPLAT_REQUIRE_GO=1"),
            "{error}"
        );
    }

    #[test]
    fn the_workspace_uses_the_three_clients_at_their_newest_go_line() {
        let work = go_work(&["1.9".into(), "1.23".into(), "1.21".into()]);
        assert_eq!(work, "go 1.23\n\nuse (\n\t./encoder\n\t./vms\n\t./analytics\n)\n");
    }

    #[test]
    fn the_batch_configuration_leaves_out_tests_and_docs() {
        let config = batch_config("vms", Path::new("/r/openapi/vms.yaml"), Path::new("/o/go"));
        let value: serde_json::Value = serde_yaml::from_str(&config).unwrap();
        assert_eq!(value["generatorName"], "go");
        assert_eq!(value["inputSpec"], "/r/openapi/vms.yaml");
        assert_eq!(value["outputDir"], "/o/go/vms");
        assert_eq!(value["additionalProperties"]["packageName"], "vms");
        for property in ["apiTests", "modelTests", "apiDocs", "modelDocs"] {
            assert_eq!(value["globalProperties"][property], "false", "{property}");
        }
    }
}
