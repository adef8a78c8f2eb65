// The hosts' hook and event types (OpenCode, Copilot CLI, Pi), resolved by the TypeScript compiler's own checker.
//
// Run by pasture/catalog/tscheck.py as `node tscheck.cjs '<request JSON>'`; every string arrives
// in that one argv element and leaves as JSON on stdout, never pasted into code. The request:
//   {"typescript": <folder of the typescript package>, "node_modules": <the install read>,
//    "plugin": <plugin index.d.ts>, "buses": {<module id>: <types.gen.d.ts>}, "skip": [<hook names>],
//    "depth": <levels of object fields kept>}
// The answer: {"hooks": [{"name", "params": [input, output] | null, "arity"}], "buses": {<module>: [tree]}}
// or {"error": "<what was not found or not resolved, with file and symbol>"} and exit status 3.
// A request with "handlers": {"file", "interface"} instead of "plugin" reads an interface of optional
// handler functions (Copilot's SessionHooks: `(input, invocation) => Promise<Output | void> | Output | void`)
// and answers {"handlers": [{"name", "input": tree, "output": tree}]}; there the global Date is the
// primitive "date" (its methods are no payload fields).
// A request with "overloads": {"file", "interface", "method"} reads the overloads of a subscription
// method (Pi's ExtensionAPI.on: `on(event: "<name>", handler: (event: E, ctx) => Promise<R | void> | R | void)`)
// and answers {"handlers": [{"name": <the event literal>, "input": tree of E, "output": tree of R}]}
// (output {"kind": "primitive", "type": "void"} where the handler's result is never read).
// A request with "types": {"file", "names"} (and "bundler": true for typings that import without
// extensions) answers {"types": {<name>: tree}} for exported types of one file
// (Cline's HookEventPayload union).
//
// A tree is the shape pasture.profile.catalog.normalize reads: object (fields), union (of), enum
// (values), literal (value), array (of), record, primitive (type: string, number, boolean, unknown
// for a written any/unknown/object, object past the depth, function, tuple). Aliases, imports, mapped,
// conditional and indexed-access types are whatever the checker resolves them to; a type it cannot
// resolve (the error type, an unresolved name, a deferred conditional, a bare type parameter) or an
// `any` not written as `any` is an error naming where it was met, never an `unknown`.
"use strict";

const path = require("path");

class Unresolved extends Error {}

function main() {
  const req = JSON.parse(process.argv[2]);
  const ts = require(path.join(req.typescript, "lib", "typescript.js"));
  const one = req.handlers || req.overloads || req.types;
  const roots = one ? [one.file] : [req.plugin, ...Object.values(req.buses)];
  const options = {
    noEmit: true, strict: true, skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    // a bundled package's typings import without extensions (Cline's @cline/shared): the bundler's resolution
    module: req.bundler ? ts.ModuleKind.ESNext : ts.ModuleKind.NodeNext,
    moduleResolution: req.bundler ? ts.ModuleResolutionKind.Bundler : ts.ModuleResolutionKind.NodeNext,
    typeRoots: [path.join(req.node_modules, "@types")], lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
  };
  const program = ts.createProgram(roots, options);
  const checker = program.getTypeChecker();
  const F = ts.TypeFlags;

  function sourceOf(file) {
    const sf = program.getSourceFile(file);
    if (!sf) throw new Unresolved(`the compiler could not load ${file}`);
    return sf;
  }

  function exported(file, name) {
    const moduleSymbol = checker.getSymbolAtLocation(sourceOf(file));
    const sym = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === name);
    if (!sym) throw new Unresolved(`${file} exports no ${name}`);
    return sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
  }

  function unwrap(node) {
    while (node && node.kind === ts.SyntaxKind.ParenthesizedType) node = node.type;
    return node;
  }

  // The written union a node stands for (in source order), following alias references without type
  // arguments; null where only the checker's own (type-id) order is known.
  function writtenUnion(node, type) {
    node = unwrap(node);
    for (let hops = 0; hops < 16 && node; hops++) {
      if (node.kind === ts.SyntaxKind.UnionType) return node.types;
      if (node.kind !== ts.SyntaxKind.TypeReference || node.typeArguments) break;
      let sym = checker.getSymbolAtLocation(node.typeName);
      if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
      const decl = sym && (sym.declarations || []).find((d) => d.kind === ts.SyntaxKind.TypeAliasDeclaration);
      if (!decl || decl.typeParameters) break;
      node = unwrap(decl.type);
    }
    const alias = type.aliasSymbol;
    const decl = alias && !type.aliasTypeArguments &&
      (alias.declarations || []).find((d) => d.kind === ts.SyntaxKind.TypeAliasDeclaration && !d.typeParameters);
    const body = decl && unwrap(decl.type);
    return body && body.kind === ts.SyntaxKind.UnionType ? body.types : null;
  }

  // equal but for the undefined an optional property adds
  function sameType(written, actual) {
    if (written === actual) return true;
    const strip = (x) => (x.flags & F.Union ? x.types : [x]).filter((m) => !(m.flags & F.Undefined));
    const a = strip(written), b = strip(actual);
    return a.length === b.length && a.every((m) => b.includes(m));
  }

  const EMPTY = (t) => t.flags & (F.Undefined | F.Null | F.Void);

  function members(type, node) {
    const written = writtenUnion(node, type);
    let pairs;
    if (written) {
      pairs = [];
      for (const n of written) {
        const t = checker.getTypeFromTypeNode(n);
        // a member that is itself a union (a referenced alias) is spliced in, as the checker flattens it
        if (t.flags & F.Union && !(t.flags & F.Boolean)) for (const p of members(t, n)) pairs.push(p);
        else pairs.push([t, n]);
      }
    } else {
      pairs = type.types.map((t) => [t, undefined]);
      const lits = pairs.filter(([t]) => t.flags & F.BooleanLiteral);
      if (lits.length === 2) {  // boolean is true | false to the checker
        const at = pairs.indexOf(lits[0]);
        pairs = pairs.filter((p) => !lits.includes(p));
        pairs.splice(at, 0, [checker.getBooleanType(), undefined]);
      }
    }
    const seen = new Set();  // a type written twice (or in two spliced aliases) is one member, as to the checker
    return pairs.filter(([t]) => !EMPTY(t) && !seen.has(t) && seen.add(t));
  }

  function elementNode(node) {
    node = unwrap(node);
    if (!node) return undefined;
    if (node.kind === ts.SyntaxKind.ArrayType) return node.elementType;
    if (node.kind === ts.SyntaxKind.TypeOperator) return elementNode(node.type);  // readonly T[]
    if (node.kind === ts.SyntaxKind.TypeReference && node.typeArguments && node.typeArguments.length === 1) {
      return node.typeArguments[0];
    }
    return undefined;
  }

  function fail(where, type, why, node) {
    const written = unwrap(node) ? unwrap(node).getText() : checker.typeToString(type);
    throw new Unresolved(`${where.file}: ${where.symbol}: the type ${written} ${why}`);
  }

  // type -> tree; `depth` levels of object fields are kept, deeper objects are {"type": "object"}.
  function tree(type, node, depth, where) {
    const f = type.flags;
    if (f & F.Any) {
      const name = type.intrinsicName;
      if (name !== "any") fail(where, type, `does not resolve (the checker's ${name} type: a name or module it cannot find)`, node);
      if (!node || unwrap(node).kind !== ts.SyntaxKind.AnyKeyword) fail(where, type, "resolves to any without being written as any (an untyped or unresolved import)", node);
      return { kind: "primitive", type: "unknown" };
    }
    if (f & F.Unknown) return { kind: "primitive", type: "unknown" };
    if (f & F.Boolean) return { kind: "primitive", type: "boolean" };
    if (f & F.StringLiteral || f & F.NumberLiteral) return { kind: "literal", value: type.value };
    if (f & F.BooleanLiteral) return { kind: "literal", value: type.intrinsicName === "true" };
    if (f & F.BigIntLiteral) return { kind: "literal", value: Number(type.value.base10Value) * (type.value.negative ? -1 : 1) };
    if (f & (F.String | F.TemplateLiteral | F.StringMapping)) return { kind: "primitive", type: "string" };
    if (f & (F.Number | F.BigInt)) return { kind: "primitive", type: "number" };
    if (f & F.Never) return { kind: "primitive", type: "never" };
    if (f & F.Void) return { kind: "primitive", type: "void" };
    if (f & F.Undefined) return { kind: "primitive", type: "undefined" };
    if (f & F.Null) return { kind: "primitive", type: "null" };
    if (f & F.Union) {
      const ms = members(type, node).map(([t, n]) => tree(t, n, depth, where));
      if (ms.length === 1) return ms[0];
      if (ms.length && ms.every((m) => m.kind === "literal")) return { kind: "enum", values: ms.map((m) => m.value) };
      return { kind: "union", of: ms };
    }
    if (f & (F.TypeParameter | F.Conditional | F.IndexedAccess | F.Index | F.Substitution)) {
      fail(where, type, "is left generic or deferred by the checker (a type parameter, conditional or indexed type it cannot resolve here)", node);
    }
    if (f & F.Intersection && !type.types.every((t) => t.flags & F.Object)) {
      // `string & {}`, a branded id: the value is that one primitive
      const prims = type.types.filter((t) => !(t.flags & F.Object));
      if (prims.length !== 1) fail(where, type, "intersects several non-object types", node);
      return tree(prims[0], undefined, depth, where);
    }
    if (f & F.NonPrimitive || f & F.ESSymbolLike) return { kind: "primitive", type: "unknown" };
    if (!(f & (F.Object | F.Intersection))) fail(where, type, "is of a kind the catalog reader does not know", node);
    if (one && type.symbol && type.symbol.name === "Date" && checker.getFullyQualifiedName(type.symbol) === "Date") {
      return { kind: "primitive", type: "date" };
    }
    if (checker.isArrayType(type) || checker.isTupleType(type)) {
      if (checker.isTupleType(type)) return { kind: "primitive", type: "tuple" };
      const [element] = checker.getTypeArguments(type);
      const written = elementNode(node);
      const same = written && checker.getTypeFromTypeNode(written) === element ? written : undefined;
      return { kind: "array", of: tree(element, same, depth - 1, where) };
    }
    const props = checker.getPropertiesOfType(type);
    if (!props.length && checker.getIndexInfosOfType(type).length) return { kind: "record" };
    if (!props.length && type.getCallSignatures().length) return { kind: "primitive", type: "function" };
    if (depth <= 0) return { kind: "primitive", type: "object" };
    const fields = {};
    for (const prop of props) {
      const decl = prop.valueDeclaration || (prop.declarations || [])[0];
      const t = checker.getTypeOfSymbol(prop);
      // the written node only where it is this very type (a mapped property's declaration is not)
      const propNode = decl && decl.type && sameType(checker.getTypeFromTypeNode(decl.type), t) ? decl.type : undefined;
      const at = { file: where.file, symbol: `${where.symbol}.${prop.name}` };
      const sub = tree(t, propNode, depth - 1, at);
      fields[prop.name] = prop.flags & ts.SymbolFlags.Optional ? { ...sub, optional: true } : sub;
    }
    return { kind: "object", fields };
  }

  if (req.handlers) return { handlers: handlers(req.handlers.file, req.handlers.interface) };
  if (req.overloads) return { handlers: overloads(req.overloads.file, req.overloads.interface, req.overloads.method) };
  if (req.types) return { types: declared(req.types.file, req.types.names) };

  // Named exported types of one file, each as a tree (Cline's hook payload union).
  function declared(file, names) {
    const out = {};
    for (const name of names) {
      out[name] = tree(checker.getDeclaredTypeOfSymbol(exported(file, name)), undefined, req.depth, { file, symbol: name });
    }
    return out;
  }

  // A handler's first parameter, and what it returns (Promise unwrapped, void and undefined dropped;
  // `allowVoid`: a handler whose result is never read answers the primitive "void").
  function handlerShape(where, declared, sig, allowVoid) {
    const params = sig.getParameters();
    if (!params.length) fail(where, declared, "takes no input", undefined);
    const input = tree(checker.getTypeOfSymbol(params[0]), undefined, req.depth, { ...where, symbol: `${where.symbol} ${params[0].name}` });
    const results = [];
    const flat = (t) => (t.flags & F.Union ? t.types : [t]);
    for (const t of flat(sig.getReturnType())) {
      if (t.symbol && t.symbol.name === "Promise" && checker.getTypeArguments(t).length === 1) {
        for (const u of flat(checker.getTypeArguments(t)[0])) results.push(u);
      } else results.push(t);
    }
    const kept = [...new Set(results.filter((t) => !EMPTY(t)))];
    if (!kept.length) {
      if (allowVoid) return { input, output: { kind: "primitive", type: "void" } };
      fail(where, declared, "returns nothing a host reads", undefined);
    }
    const at = { ...where, symbol: `${where.symbol} result` };
    const trees = kept.flatMap((t) => (t.flags & F.Union ? members(t, undefined) : [[t, undefined]]));
    const output = trees.length === 1 ? tree(trees[0][0], undefined, req.depth, at)
      : { kind: "union", of: trees.map(([t]) => tree(t, undefined, req.depth, at)) };
    return { input, output };
  }

  // Every member of an interface of handler functions.
  function handlers(file, name) {
    const sym = exported(file, name);
    const out = [];
    for (const member of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(sym))) {
      const where = { file, symbol: `${name}["${member.name}"]` };
      const declared = checker.getNonNullableType(checker.getTypeOfSymbol(member));
      const sigs = declared.getCallSignatures();
      if (sigs.length !== 1) fail(where, declared, "is not one handler function", undefined);
      out.push({ name: member.name, ...handlerShape(where, declared, sigs[0], false) });
    }
    if (!out.length) throw new Unresolved(`${file}: ${name} has no members`);
    return out;
  }

  // Every overload of interface[method](event: "<literal>", handler): one entry per event literal.
  function overloads(file, name, method) {
    const sym = exported(file, name);
    const prop = checker.getPropertyOfType(checker.getDeclaredTypeOfSymbol(sym), method);
    if (!prop) throw new Unresolved(`${file}: ${name} has no method ${method}`);
    const out = [];
    const seen = new Set();
    for (const sig of checker.getTypeOfSymbol(prop).getCallSignatures()) {
      const params = sig.getParameters();
      const at = { file, symbol: `${name}.${method}` };
      if (params.length !== 2) fail(at, checker.getTypeOfSymbol(prop), "has an overload that does not take (event, handler)", undefined);
      const literal = checker.getTypeOfSymbol(params[0]);
      if (!(literal.flags & F.StringLiteral)) fail(at, literal, "has an overload whose event is not one string literal", undefined);
      const event = literal.value;
      if (seen.has(event)) throw new Unresolved(`${file}: ${name}.${method}("${event}") is overloaded twice`);
      seen.add(event);
      const where = { file, symbol: `${name}.${method}("${event}") handler` };
      const handler = checker.getNonNullableType(checker.getTypeOfSymbol(params[1]));
      const sigs = handler.getCallSignatures();
      if (sigs.length !== 1) fail(where, handler, "is not one handler function", undefined);
      out.push({ name: event, ...handlerShape(where, handler, sigs[0], true) });
    }
    if (!out.length) throw new Unresolved(`${file}: ${name}.${method} has no overloads`);
    return out;
  }

  const hooksSym = exported(req.plugin, "Hooks");
  const hooksType = checker.getDeclaredTypeOfSymbol(hooksSym);
  const hooks = [];
  for (const member of checker.getPropertiesOfType(hooksType)) {
    const entry = { name: member.name, params: null, arity: null };
    hooks.push(entry);
    if (req.skip.includes(member.name)) continue;
    const declared = checker.getNonNullableType(checker.getTypeOfSymbol(member));
    if (declared.flags & F.Any) {  // an unresolved hook type would otherwise look like "not a function"
      const decl = member.valueDeclaration;
      const written = decl && decl.type ? decl.type.getText() : checker.typeToString(declared);
      throw new Unresolved(`${req.plugin}: Hooks["${member.name}"]: the type ${written} does not resolve to a function or object`);
    }
    const sigs = declared.getCallSignatures();
    if (!sigs.length || declared.getProperties().length) continue;  // not a function: no event
    if (sigs.length > 1) throw new Unresolved(`${req.plugin}: Hooks["${member.name}"] is overloaded; which (input, output) the host calls is not written down`);
    const params = sigs[0].getParameters();
    entry.arity = params.length;
    if (params.length !== 2) continue;
    entry.params = params.map((p) => {
      const decl = p.valueDeclaration;
      const where = { file: req.plugin, symbol: `Hooks["${member.name}"] ${p.name}` };
      return tree(checker.getTypeOfSymbol(p), decl && decl.type, req.depth, where);
    });
  }
  const buses = {};
  for (const [module, file] of Object.entries(req.buses)) {
    const sym = exported(file, "Event");
    const type = checker.getDeclaredTypeOfSymbol(sym);
    const decl = (sym.declarations || [])[0];
    const of = type.flags & F.Union ? members(type, decl && decl.type) : [[type, decl && decl.type]];  // one event, or many
    buses[module] = of.map(([t, n], i) =>
      tree(t, n, req.depth, { file, symbol: `Event member ${i + 1} (${checker.typeToString(t)})` }));
  }
  return { hooks, buses };
}

let answer;
try {
  answer = main();
} catch (err) {
  if (!(err instanceof Unresolved)) throw err;
  process.stdout.write(JSON.stringify({ error: err.message }) + "\n");
  process.exit(3);
}
process.stdout.write(JSON.stringify(answer) + "\n");
