// HAND-WRITTEN, MINIMAL STAND-IN for the @opencode/plugin 2.x typings. NOT the published package.
//
// Why: no 2.x plugin typings can be installed. `npm view @opencode/plugin` answers 404, and
// @opencode-ai/plugin stops at 1.18.33, whose ./v2/promise preview has no tool, session,
// permission, shell or event domain. So the generated OpenCode 2.0.20 plugin is type-checked
// against this file instead, written only from these source facts (anomalyco/opencode):
//
// - packages/plugin/src/promise/index.ts: `export * as Plugin from "./plugin.js"`.
// - packages/plugin/src/promise/plugin.ts: `interface Plugin { id; tui?; setup(context) }`,
//   `type Cleanup`, `function define(plugin) { return plugin }`, `interface Context` (domains).
// - packages/plugin/src/promise/registration.ts: Registration, Hooks<Spec>, ModelHooks<Spec>
//   (as printed in a built dist/promise/registration.d.ts quoted by a third-party 2.0.24 report).
// - packages/plugin/src/promise/tool.ts: ToolHooks "execute.before" / "execute.after".
// - packages/plugin/src/promise/session.ts: SessionHooks prompt, context, compaction, generate,
//   title, model.request, http.request, http.response, retry.
// - packages/plugin/src/promise/permission.ts (quoted by the same report) and
//   packages/core/src/permission.ts at 025dd440: PermissionEvaluation { effect, message? }, which
//   the host returns from evaluateInput.
// - packages/plugin/src/promise/shell.ts: ShellHooks "create.before".
// - packages/plugin/src/promise/event.ts: EventDomain.subscribe(type?) -> AsyncIterable.
//
// Fields the adapter never reads are typed `unknown`; shapes differ between upstream commits.
//
// NOT in the public typings: session hooks experimental.ws.handshake / .send / .receive. The
// 2.0.20 profile lists them, and the third-party report found experimental.ws.handshake
// registered only inside the 2.0.24 binary. They are declared below so the profile's rows
// type-check here; real typings, if published, would flag them.

declare module "@opencode/plugin" {
  export namespace Plugin {
    interface Registration {
      readonly dispose: () => Promise<void>
    }

    type Hooks<Spec> = <Name extends keyof Spec>(
      name: Name,
      callback: (input: Spec[Name]) => Promise<void> | void,
    ) => Promise<Registration>

    type ModelHooks<Spec> = <Name extends keyof Spec>(
      name: Name,
      callback: (input: Spec[Name]) => Promise<void> | void,
      options?: { readonly providerID?: string },
    ) => Promise<Registration>

    interface SessionEvent {
      readonly sessionID: string
      readonly [field: string]: unknown
    }

    interface SessionHooks {
      readonly prompt: SessionEvent
      readonly context: SessionEvent
      readonly compaction: SessionEvent
      readonly generate: SessionEvent
      readonly title: SessionEvent
      readonly "model.request": SessionEvent
      readonly "http.request": SessionEvent
      readonly "http.response": SessionEvent
      readonly retry: SessionEvent
      // Not in the public typings (see the header).
      readonly "experimental.ws.handshake": SessionEvent
      readonly "experimental.ws.send": SessionEvent
      readonly "experimental.ws.receive": SessionEvent
    }

    interface ToolHooks {
      readonly "execute.before": {
        tool: string
        readonly sessionID: string
        readonly agent: string
        readonly messageID: string
        readonly id: string
        input: unknown
      }
      readonly "execute.after": {
        readonly tool: string
        readonly sessionID: string
        readonly agent: string
        readonly messageID: string
        readonly id: string
        readonly input: unknown
      } & ({ readonly status: "completed"; result: unknown } | { readonly status: "error"; error: unknown })
    }

    interface PermissionEvaluation {
      readonly sessionID: string
      readonly agent?: string
      readonly action: string
      readonly resources: ReadonlyArray<string>
      readonly metadata?: Record<string, unknown>
      readonly source?: unknown
      effect: "allow" | "deny" | "ask"
      message?: string
    }

    interface PermissionHooks {
      readonly evaluate: PermissionEvaluation
    }

    interface ShellHooks {
      readonly "create.before": {
        command: string
        cwd: string
        timeout: number
        shell: string
        env: Record<string, string | undefined>
      }
    }

    interface PluginEvent {
      readonly id: string
      readonly type: string
      readonly data?: unknown
    }

    interface Context {
      readonly options: Record<string, unknown>
      readonly session: { readonly hook: ModelHooks<SessionHooks> }
      readonly tool: { readonly hook: Hooks<ToolHooks> }
      readonly permission: { readonly hook: Hooks<PermissionHooks> }
      readonly shell: { readonly hook: Hooks<ShellHooks> }
      readonly event: { readonly subscribe: (type?: string) => AsyncIterable<PluginEvent> }
    }

    type Cleanup = () => Promise<void> | void

    interface Plugin {
      readonly id: string
      readonly tui?: boolean
      readonly setup: (context: Context) => Promise<Cleanup | void> | Cleanup | void
    }

    function define(plugin: Plugin): Plugin
  }
}
