// Loads a generated OpenCode plugin the way the host does and plays scripted cases against it.
//
// Runs under Bun (the runtime inside the opencode binary, started with BUN_BE_BUN=1) or Node (on
// the tsc-emitted JavaScript). Usage: <runtime> opencode_driver.mjs SPEC.json; prints one JSON
// document on stdout. The stub runtime (PASTURE_BIN) appends one JSON line per call to $STUB_LOG.
import { existsSync, readFileSync } from "node:fs"
import { pathToFileURL } from "node:url"

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"))
const reports = []
const consoleError = console.error
console.error = (...args) => reports.push({ channel: "console", args: args.map(String) })

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function calls(log) {
  if (!existsSync(log)) return []
  return readFileSync(log, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line))
}

async function waitForCalls(log, count, ms) {
  const until = Date.now() + ms
  while (calls(log).length < count && Date.now() < until) await sleep(20)
}

function build(value) {
  // JSON cannot carry a cycle or a BigInt: the spec marks them and they are built here.
  if (Array.isArray(value)) return value.map(build)
  if (value !== null && typeof value === "object") {
    if (value.$bigint !== undefined) return BigInt(value.$bigint)
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

// --- instantiate ------------------------------------------------------------------------------
const registry = new Map()
const subscriptions = new Map()
let dispatchEvent
let cleanup
if (spec.flavour === "v1") {
  const client = {
    app: {
      log: async (options) => {
        reports.push({ channel: "client.app.log", ...options.body })
        return { data: true }
      },
    },
  }
  const plugin = mod[spec.export]
  const hooks = await plugin({ client, directory: spec.directory, worktree: spec.directory, project: { id: "global" } })
  result.hookKeys = Object.keys(hooks)
  for (const [name, fn] of Object.entries(hooks)) registry.set(name, fn)
  dispatchEvent = (event) => hooks.event({ event })
} else {
  const plugin = mod.default
  result.plugin = { id: plugin.id, setup: typeof plugin.setup }
  result.registrations = []
  const domain = (name) => ({
    hook: async (hook, callback, ...rest) => {
      result.registrations.push([name, hook, rest.length])
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
  cleanup = await plugin.setup(ctx)
  result.subscribed = [...subscriptions.keys()]
  dispatchEvent = (event) => subscriptions.get(event.type)?.(event)
}

// --- cases ------------------------------------------------------------------------------------
for (const c of spec.cases) {
  const log = `${spec.logs}/${c.id}.jsonl`
  const saved = { ...process.env }
  Object.assign(process.env, { STUB_LOG: log, STUB_MODE: c.mode ?? "proceed", STUB_REASON: c.reason ?? "" }, c.env ?? {})
  for (const key of c.unset ?? []) delete process.env[key]
  const first = reports.length
  const input = build(c.input ?? {})
  const output = build(c.output ?? {})
  const argsBefore = output.args
  const before = snapshot({ input, output })
  const out = { threw: false, message: null }
  const started = Date.now()
  try {
    if (c.kind === "hook") {
      const fn = registry.get(c.event)
      if (!fn) throw new Error(`driver: no hook ${c.event}`)
      if (spec.flavour === "v1") await fn(input, output)
      else await fn(input)
    } else if (c.kind === "bus") {
      const events = c.events ?? [input]
      if (spec.flavour === "v1") await Promise.all(events.map((event) => dispatchEvent(build(event))))
      else {
        for (const event of events) dispatchEvent(build(event))
        await waitForCalls(log, c.expectCalls ?? events.length, 5000)
        await sleep(300) // let the adapter finish judging the last answer
      }
    }
  } catch (error) {
    out.threw = true
    out.message = error instanceof Error ? error.message : String(error)
    out.isError = error instanceof Error
  }
  out.ms = Date.now() - started
  out.after = snapshot({ input, output })
  out.before = before
  out.argsSame = output.args === argsBefore
  out.calls = calls(log)
  out.reports = reports.slice(first)
  result.cases[c.id] = out
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
  Object.assign(process.env, saved)
}

if (typeof cleanup === "function") await cleanup()
console.error = consoleError
process.stdout.write(JSON.stringify(result) + "\n")
process.exit(0)
