//! TypeScript names of Rust types, for the generated command and event bindings
//! (`ui/src/wire/commands.ts`, written by the desktop shell's `export_bindings_commands` test).

use std::path::PathBuf;

use ts_rs::{Config, Dependency, TypeVisitor, TS};

/// How a Rust type is written in TypeScript, and the generated wire files it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TsType {
    /// E.g. `Array<ServerView>`, `string | null`, `null` for `()`.
    pub name: String,
    /// `(name, path relative to ui/src/wire)` of every exported type the name mentions.
    pub imports: Vec<(String, PathBuf)>,
}

impl TsType {
    /// `T` as ts-rs writes it (same configuration as the exported wire types).
    pub fn of<T: TS + 'static + ?Sized>() -> Self {
        struct Collect<'a>(&'a Config, Vec<Dependency>);
        impl TypeVisitor for Collect<'_> {
            fn visit<U: TS + 'static + ?Sized>(&mut self) {
                if let Some(dependency) = Dependency::from_ty::<U>(self.0) {
                    self.1.push(dependency);
                }
                U::visit_generics(self);
            }
        }
        let cfg = Config::from_env();
        let mut collect = Collect(&cfg, Vec::new());
        collect.visit::<T>();
        let mut imports: Vec<(String, PathBuf)> = collect.1.into_iter().map(|d| (d.ts_name, d.output_path)).collect();
        imports.sort();
        imports.dedup();
        Self { name: T::name(&cfg), imports }
    }
}
