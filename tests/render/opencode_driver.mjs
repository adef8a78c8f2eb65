// Loads a generated OpenCode plugin the way the host does and plays scripted cases against it.
//
// Runs under Bun (the runtime inside the opencode binary, started with BUN_BE_BUN=1) or Node (on
// the tsc-emitted JavaScript). Usage: <runtime> opencode_driver.mjs SPEC.json; writes one JSON
// document to the spec's result path. Every case gets a fresh plugin instance (so a fresh runtime
// process, started with the case's environment); the stub runtime (opencode_stub_server.py) reads
// the case's control file ($STUB_CONTROL) and appends its starts and requests to the case's log.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { pathToFileURL } from "node:url"

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"))
const reports = []
const consoleError = console.error
console.error = (...args) => reports.push({ channel: "console", args: args.map(String) })

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function records(log) {
  if (!existsSync(log)) return []
  const out = []
  for (const line of readFileSync(log, "utf8").split("\n")) {
    try {
      if (line.trim() !== "") out.push(JSON.parse(line))
    } catch {
      // a line still being written: read again next time
    }
  }
  return out
}

async function waitFor(log, test, ms) {
  const until = Date.now() + ms
  while (!test(records(log)) && Date.now() < until) await sleep(20)
}

function build(value) {
  // JSON cannot carry a cycle, a BigInt or a 17 MiB string: the spec marks them and they are built here.
  if (Array.isArray(value)) return value.map(build)
  if (value !== null && typeof value === "object") {
    if (value.$bigint !== undefined) return BigInt(value.$bigint)
    if (value.$repeat !== undefined) return value.$repeat.repeat(value.times)
    const out = {}
    for (const [key, item] of Object.entries(value)) out[key] = build(item)
    if (value.$cycle === true) {
      delete out.$cycle
      out.self = out
    }
    return out
  }
  return value
}

function snapshot(value) {
  const seen = new WeakSet()
  return JSON.parse(
    JSON.stringify(value, (_key, item) => {
      if (typeof item === "bigint") return `bigint:${item}`
      if (typeof item === "string" && item.length > 10000) return `string of ${item.length}`
      if (item !== null && typeof item === "object") {
        if (seen.has(item)) return "[seen]"
        seen.add(item)
      }
      return item
    }) ?? "null",
  )
}

const mod = await import(pathToFileURL(spec.plugin).href)
const result = { exports: Object.keys(mod).sort(), exportTypes: {}, cases: {} }
for (const [key, value] of Object.entries(mod)) result.exportTypes[key] = typeof value

// One plugin instance: its hooks by native name, how to deliver a bus event, how to unload it.
async function instantiate() {
  const registry = new Map()
  const subscriptions = new Map()
  const out = { registry }
  if (spec.flavour === "v1") {
    const client = {
      app: {
        log: async (options) => {
          reports.push({ channel: "client.app.log", ...options.body })
          return { data: true }
        },
      },
    }
    const hooks = await mod[spec.export]({ client, directory: spec.directory, worktree: spec.directory, project: { id: "global" } })
    out.hookKeys = Object.keys(hooks)
    for (const [name, fn] of Object.entries(hooks)) registry.set(name, fn)
    out.dispatch = (event) => hooks.event({ event })
    out.dispose = async () => hooks.dispose?.()
    return out
  }
  const plugin = mod.default
  out.plugin = { id: plugin.id, setup: typeof plugin.setup }
  out.registrations = []
  const domain = (name) => ({
    hook: async (hook, callback, ...rest) => {
      out.registrations.push([name, hook, rest.length])
      registry.set(`${name}.${hook}`, callback)
      return { dispose: async () => {} }
    },
  })
  const ctx = {
    options: {},
    location: { directory: spec.directory },
    session: domain("session"),
    tool: domain("tool"),
    permission: domain("permission"),
    shell: domain("shell"),
    event: {
      subscribe: (type) => {
        const pending = []
        const waiters = []
        subscriptions.set(type, (event) => {
          const waiter = waiters.shift()
          if (waiter) waiter({ value: event, done: false })
          else pending.push(event)
        })
        return {
          [Symbol.asyncIterator]: () => ({
            next: () =>
              pending.length > 0
                ? Promise.resolve({ value: pending.shift(), done: false })
                : new Promise((resolve) => waiters.push(resolve)),
            return: async () => {
              for (const waiter of waiters.splice(0)) waiter({ value: undefined, done: true })
              return { value: undefined, done: true }
            },
          }),
        }
      },
    },
  }
  const cleanup = await plugin.setup(ctx)
  out.subscribed = [...subscriptions.keys()]
  out.dispatch = (event) => subscriptions.get(event.type)?.(event)
  out.dispose = async () => (typeof cleanup === "function" ? cleanup() : undefined)
  return out
}

async function play(instance, call) {
  const input = build(call.input ?? {})
  const output = build(call.output ?? {})
  const argsBefore = output.args
  const out = { threw: false, message: null, before: snapshot({ input, output }) }
  const started = Date.now()
  try {
    if (call.kind === "hook") {
      const fn = instance.registry.get(call.event)
      if (!fn) throw new Error(`driver: no hook ${call.event}`)
      if (spec.flavour === "v1") await fn(input, output)
      else await fn(input)
    } else {
      const events = (call.events ?? [call.input]).map(build)
      if (spec.flavour === "v1") await Promise.all(events.map((event) => instance.dispatch(event)))
      else for (const event of events) instance.dispatch(event)
    }
  } catch (error) {
    out.threw = true
    out.message = error instanceof Error ? error.message : String(error)
    out.isError = error instanceof Error
  }
  out.ms = Date.now() - started
  out.after = snapshot({ input, output })
  out.argsSame = output.args === argsBefore
  return out
}

// --- cases ------------------------------------------------------------------------------------
for (const c of spec.cases) {
  const log = `${spec.logs}/${c.id}.jsonl`
  const control = `${spec.logs}/${c.id}.control.json`
  writeFileSync(control, JSON.stringify({ log, mode: c.mode ?? "proceed", reason: c.reason ?? "", await: spec.await, ...(c.control ?? {}) }))
  const saved = { ...process.env }
  Object.assign(process.env, { STUB_CONTROL: control }, c.env ?? {})
  for (const key of c.unset ?? []) delete process.env[key]
  const first = reports.length
  const instance = await instantiate()
  if (c.pauseMs) await sleep(c.pauseMs)
  const calls = c.calls ?? [c]
  const started = Date.now()
  const results = c.parallel ? await Promise.all(calls.map((call) => play(instance, call))) : []
  if (!c.parallel) for (const call of calls) results.push(await play(instance, call))
  const ms = Date.now() - started
  const expect = c.expectRequests ?? calls.reduce((n, call) => n + (call.kind === "bus" ? (call.events ?? [0]).length : 1), 0)
  // The waits below end as soon as their condition holds; the 60 s bounds are for a busy machine.
  await waitFor(log, (rs) => rs.filter((r) => r.kind === "request").length >= expect, 60000)
  if (c.expectReports) {
    const until = Date.now() + 60000
    while (reports.length - first < c.expectReports && Date.now() < until) await sleep(20)
  }
  await sleep(c.settleMs ?? 250) // replies nobody waits for, and the reports they cause
  if (c.dispose !== false) {
    await instance.dispose()
    if (c.expectEof) await waitFor(log, (rs) => rs.some((r) => r.kind === "eof"), 60000)
  }
  const rs = records(log)
  result.cases[c.id] = {
    ...results[0],
    results,
    ms,
    starts: rs.filter((r) => r.kind === "start"),
    calls: rs.filter((r) => r.kind === "request").sort((a, b) => a.request.id - b.request.id),
    eof: rs.filter((r) => r.kind === "eof"),
    reports: reports.slice(first),
  }
  if (result.hookKeys === undefined) {
    for (const key of ["hookKeys", "plugin", "registrations", "subscribed"]) if (instance[key] !== undefined) result[key] = instance[key]
  }
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
  Object.assign(process.env, saved)
}

console.error = consoleError
writeFileSync(spec.result, JSON.stringify(result) + "\n") // stdout may be cut short by the exit
process.exit(0)
