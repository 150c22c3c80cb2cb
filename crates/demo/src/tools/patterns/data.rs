//! The demo pattern catalog: 30 Effect-TS patterns in six categories. Static data, so every answer
//! of the pattern tools is deterministic for its arguments.

/// One pattern as the catalog holds it.
pub(crate) struct Pattern {
    /// Stable kebab-case id (`get_pattern` takes it).
    pub id: &'static str,
    pub title: &'static str,
    /// One of [`CATEGORIES`].
    pub category: &'static str,
    /// One of [`DIFFICULTIES`].
    pub difficulty: &'static str,
    /// About 200 characters at most.
    pub summary: &'static str,
    /// The full description.
    pub description: &'static str,
    pub tags: &'static [&'static str],
    pub use_when: &'static str,
    pub avoid_when: &'static str,
    /// Extra sections besides the description and the examples.
    pub sections: &'static [Section],
    /// TypeScript examples.
    pub examples: &'static [Example],
    /// When the pattern was last revised (ISO 8601, UTC, milliseconds).
    pub updated: &'static str,
}

pub(crate) struct Section {
    pub title: &'static str,
    /// `rationale`, `pitfalls`, `notes`.
    pub kind: &'static str,
    pub content: &'static str,
}

pub(crate) struct Example {
    pub description: &'static str,
    pub code: &'static str,
}

pub(crate) const CATEGORIES: &[&str] = &["error-handling", "service", "validation", "concurrency", "resource-management", "streams"];
pub(crate) const DIFFICULTIES: &[&str] = &["beginner", "intermediate", "advanced"];

pub(crate) static PATTERNS: &[Pattern] = &[
    // ── error-handling ────────────────────────────────────────────────────────────────────────
    Pattern {
        id: "error-handling-tagged-errors",
        title: "Model Failures with Data.TaggedError",
        category: "error-handling",
        difficulty: "beginner",
        summary: "Declare each expected failure as a class extending Data.TaggedError so it carries a `_tag` and typed fields, and shows up in the error channel of every Effect that can produce it.",
        description: "Expected failures (a missing user, an unavailable database) are part of a function's contract. Data.TaggedError gives each one a `_tag` discriminator and typed fields, so the compiler lists them in the Effect's error channel and handlers can pattern-match on them.",
        tags: &["Data.TaggedError", "Effect.fail", "error-channel", "typed-errors"],
        use_when: "Whenever a failure is expected and callers may want to react to it specifically.",
        avoid_when: "For bugs and broken invariants: those are defects, raise them with Effect.die or Effect.orDie.",
        sections: &[Section {
            title: "Why tags",
            kind: "rationale",
            content: "A `_tag` makes errors a discriminated union: `Effect.catchTag` and `Match.tag` remove handled cases from the type, so the compiler tells you which failures are still unhandled.",
        }],
        examples: &[Example {
            description: "Two tagged errors and a lookup that can fail with either",
            code: r#"import { Data, Effect } from "effect"

class UserNotFound extends Data.TaggedError("UserNotFound")<{
  readonly userId: string
}> {}

class DatabaseUnavailable extends Data.TaggedError("DatabaseUnavailable")<{
  readonly cause: unknown
}> {}

const findUser = (userId: string): Effect.Effect<User, UserNotFound | DatabaseUnavailable> =>
  Effect.tryPromise({
    try: () => db.users.findById(userId),
    catch: (cause) => new DatabaseUnavailable({ cause })
  }).pipe(
    Effect.flatMap((user) =>
      user ? Effect.succeed(user) : Effect.fail(new UserNotFound({ userId }))
    )
  )"#,
        }],
        updated: "2025-10-02T09:15:00.000Z",
    },
    Pattern {
        id: "error-handling-catch-tag",
        title: "Recover from Specific Errors with Effect.catchTag",
        category: "error-handling",
        difficulty: "beginner",
        summary: "Handle one tagged failure with Effect.catchTag (or several with Effect.catchTags) and let every other error pass through, narrowing the error type as you go.",
        description: "Effect.catchTag recovers from exactly one error, selected by its `_tag`, and removes it from the error channel. Effect.catchTags takes an object of handlers for several tags at once. Errors you do not name keep flowing, so recovery stays deliberate instead of catch-all.",
        tags: &["Effect.catchTag", "Effect.catchTags", "error-handling", "recovery"],
        use_when: "When a caller has a sensible fallback for some failures but not for others.",
        avoid_when: "When every failure should be handled the same way: Effect.catchAll or Effect.orElse is simpler.",
        sections: &[],
        examples: &[
            Example {
                description: "Fall back to a guest user only when the user is missing",
                code: r#"import { Effect } from "effect"

const profile = findUser(userId).pipe(
  Effect.catchTag("UserNotFound", (error) =>
    Effect.succeed(GuestUser.make({ requestedId: error.userId }))
  )
)
// profile: Effect<User | GuestUser, DatabaseUnavailable>"#,
            },
            Example {
                description: "Several handlers at once",
                code: r#"const response = handleRequest(request).pipe(
  Effect.catchTags({
    UserNotFound: () => Effect.succeed(HttpResponse.notFound()),
    Unauthorized: () => Effect.succeed(HttpResponse.forbidden())
  })
)"#,
            },
        ],
        updated: "2025-10-02T09:30:00.000Z",
    },
    Pattern {
        id: "error-handling-match",
        title: "Error Handling with Effect.match",
        category: "error-handling",
        difficulty: "beginner",
        summary: "Use Effect.match to turn both outcomes of an Effect into one value, or Effect.matchEffect when either branch needs to run more effects.",
        description: "Effect.match takes an onFailure and an onSuccess handler and returns an Effect that cannot fail: both outcomes are folded into a single success value. Effect.matchEffect does the same with effectful handlers. It is the Effect counterpart of a try/catch that returns a value from both branches.",
        tags: &["Effect.match", "Effect.matchEffect", "error-handling", "fold"],
        use_when: "At the edge of a workflow, where success and failure become one response, message or status.",
        avoid_when: "In the middle of a pipeline where errors should keep propagating to a caller that knows better.",
        sections: &[],
        examples: &[Example {
            description: "Render a message whatever the outcome",
            code: r#"import { Effect } from "effect"

const message = fetchOrder(orderId).pipe(
  Effect.match({
    onFailure: (error) => `Could not load order ${orderId}: ${error._tag}`,
    onSuccess: (order) => `Order ${order.id} has ${order.items.length} items`
  })
)
// message: Effect<string, never>"#,
        }],
        updated: "2025-10-03T14:00:00.000Z",
    },
    Pattern {
        id: "error-handling-retry-schedule",
        title: "Retry Transient Failures with Schedule",
        category: "error-handling",
        difficulty: "intermediate",
        summary: "Combine Effect.retry with a Schedule (exponential backoff, jitter, a cap on attempts) to retry only transient failures, declaratively.",
        description: "Effect.retry re-runs a failed Effect according to a Schedule. Schedules compose: Schedule.exponential for backoff, Schedule.jittered to spread load, Schedule.recurs or Schedule.upTo to bound retries. The `while` option retries only the errors that are worth retrying, such as network timeouts.",
        tags: &["Effect.retry", "Schedule", "backoff", "error-handling", "resilience"],
        use_when: "For calls to networks, queues and other dependencies that fail transiently.",
        avoid_when: "For validation or authorization failures: retrying them only adds latency.",
        sections: &[Section {
            title: "Pitfalls",
            kind: "pitfalls",
            content: "Retrying a non-idempotent request (a payment, an insert) can duplicate it. Add an idempotency key or retry only the read side.",
        }],
        examples: &[Example {
            description: "Exponential backoff with jitter, at most five retries, only for network errors",
            code: r#"import { Duration, Effect, Schedule } from "effect"

const policy = Schedule.exponential(Duration.millis(100), 2).pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(5))
)

const prices = fetchPrices(symbols).pipe(
  Effect.retry({
    schedule: policy,
    while: (error) => error._tag === "NetworkError"
  })
)"#,
        }],
        updated: "2025-10-08T11:20:00.000Z",
    },
    Pattern {
        id: "error-handling-map-error",
        title: "Translate Errors at Boundaries with Effect.mapError",
        category: "error-handling",
        difficulty: "intermediate",
        summary: "Use Effect.mapError to turn low-level failures into errors of the layer you are writing, so callers never depend on a storage or HTTP library's error types.",
        description: "Each layer of an application should expose errors in its own vocabulary. Effect.mapError transforms the error channel without touching the success value, which keeps implementation details (SQL errors, HTTP status codes) from leaking into the domain and lets you swap implementations freely.",
        tags: &["Effect.mapError", "error-handling", "layering", "domain-errors"],
        use_when: "At module and service boundaries, especially around third-party clients.",
        avoid_when: "When the caller genuinely needs the original error: keep it as `cause` instead of discarding it.",
        sections: &[],
        examples: &[Example {
            description: "Repository errors become a service error that keeps the cause",
            code: r#"import { Data, Effect } from "effect"

class InvoiceError extends Data.TaggedError("InvoiceError")<{
  readonly reason: "storage" | "not-found"
  readonly cause?: unknown
}> {}

const getInvoice = (id: string) =>
  InvoiceRepo.findById(id).pipe(
    Effect.mapError((cause) => new InvoiceError({ reason: "storage", cause }))
  )"#,
        }],
        updated: "2025-10-09T08:45:00.000Z",
    },
    Pattern {
        id: "error-handling-defects",
        title: "Separate Expected Errors from Defects",
        category: "error-handling",
        difficulty: "advanced",
        summary: "Keep the error channel for failures callers can handle; turn impossible states into defects with Effect.orDie and catch them only at the edge with Effect.catchAllDefect.",
        description: "Effect distinguishes failures (typed, in the error channel) from defects (unexpected, untyped, recorded in the Cause). Converting unrecoverable errors to defects with Effect.orDie keeps signatures honest, and Effect.catchAllDefect or Effect.sandbox at the program's edge logs them without pretending they are part of the domain.",
        tags: &["Effect.orDie", "Effect.catchAllDefect", "Cause", "defects", "error-handling"],
        use_when: "When a failure means a bug or a broken deployment (missing config, corrupt state) rather than a case to handle.",
        avoid_when: "For anything a user can cause: that belongs in the typed error channel.",
        sections: &[Section {
            title: "Reading a Cause",
            kind: "notes",
            content: "Cause.pretty renders failures, defects and interruptions together, with fiber traces. Log it once, at the edge.",
        }],
        examples: &[Example {
            description: "Config parsing that dies, and a last-resort handler",
            code: r#"import { Effect } from "effect"

const config = Effect.try({
  try: () => JSON.parse(rawConfig) as AppConfig,
  catch: (cause) => new ConfigParseError({ cause })
}).pipe(Effect.orDie)

const main = program.pipe(
  Effect.catchAllDefect((defect) =>
    Effect.logError("unexpected defect", defect).pipe(Effect.as(ExitCode.Failure))
  )
)"#,
        }],
        updated: "2025-10-12T16:05:00.000Z",
    },
    // ── service ───────────────────────────────────────────────────────────────────────────────
    Pattern {
        id: "effect-service",
        title: "Effect.Service Pattern",
        category: "service",
        difficulty: "intermediate",
        summary: "Create reusable services using Effect.Service: one class gives you the tag, the implementation and a Default layer with its dependencies already wired.",
        description: "Effect.Service<Self>()(key, { effect, dependencies }) declares a service and its live implementation in one place. The class is the tag you yield in Effect.gen, and `Service.Default` is a Layer that builds it, so programs depend on an interface while wiring stays in one spot.",
        tags: &["Effect.Service", "dependency-injection", "Layer", "service"],
        use_when: "When you need to create reusable, testable services with one obvious default implementation.",
        avoid_when: "For simple one-off operations, or when an interface has no default implementation (use Context.Tag).",
        sections: &[Section {
            title: "Testing",
            kind: "notes",
            content: "Provide `Service.make({...})` or a Layer.succeed of the class to replace the implementation in tests; the program code does not change.",
        }],
        examples: &[Example {
            description: "Basic service definition",
            code: r#"import { Effect, Ref } from "effect"

export class Counter extends Effect.Service<Counter>()("app/Counter", {
  effect: Effect.gen(function* () {
    const ref = yield* Ref.make(0)
    return {
      increment: Ref.updateAndGet(ref, (n) => n + 1),
      current: Ref.get(ref)
    } as const
  })
}) {}

const program = Effect.gen(function* () {
  const counter = yield* Counter
  yield* counter.increment
  return yield* counter.current
})

Effect.runPromise(program.pipe(Effect.provide(Counter.Default)))"#,
        }],
        updated: "2025-11-04T10:00:00.000Z",
    },
    Pattern {
        id: "service-context-tag",
        title: "Declare a Dependency with Context.Tag",
        category: "service",
        difficulty: "beginner",
        summary: "Describe a dependency as a Context.Tag with an interface, use it with `yield*`, and provide an implementation later with Effect.provideService.",
        description: "A Context.Tag names a service and its interface. Effects that `yield*` the tag record it in their requirements type (the R in Effect<A, E, R>), and the program only runs once something provides it. This is dependency injection checked by the compiler, with no container or decorators.",
        tags: &["Context.Tag", "Effect.provideService", "dependency-injection", "service"],
        use_when: "For dependencies with several implementations (real, fake, per-environment), or interfaces owned by the caller.",
        avoid_when: "When there is one implementation with its own dependencies: Effect.Service bundles them.",
        sections: &[],
        examples: &[Example {
            description: "A random-number service and a die roll that needs it",
            code: r#"import { Context, Effect } from "effect"

class Random extends Context.Tag("app/Random")<
  Random,
  { readonly next: Effect.Effect<number> }
>() {}

const rollDie = Effect.gen(function* () {
  const random = yield* Random
  const n = yield* random.next
  return Math.floor(n * 6) + 1
})
// rollDie: Effect<number, never, Random>

const runnable = rollDie.pipe(
  Effect.provideService(Random, { next: Effect.sync(() => Math.random()) })
)"#,
        }],
        updated: "2025-10-15T09:00:00.000Z",
    },
    Pattern {
        id: "service-layer-composition",
        title: "Compose Layers with Layer.provide and Layer.merge",
        category: "service",
        difficulty: "intermediate",
        summary: "Build the application's dependency graph from small layers: Layer.provide feeds one layer's outputs into another, Layer.merge combines independent ones.",
        description: "Layers are recipes for services. Layer.effect and Layer.succeed build single services; Layer.provide wires a layer's requirements; Layer.merge and Layer.mergeAll run independent layers side by side. Each layer is built once per provide, so shared services (a connection pool) are shared automatically.",
        tags: &["Layer", "Layer.provide", "Layer.merge", "service", "dependency-graph"],
        use_when: "When an application has more than a couple of services that depend on each other.",
        avoid_when: "For a single service with no dependencies: Effect.provideService is enough.",
        sections: &[],
        examples: &[Example {
            description: "Config, database and repository layers wired into one",
            code: r#"import { Effect, Layer } from "effect"

const ConfigLive = Layer.succeed(AppConfig, { databaseUrl: "postgres://localhost/app" })

const DatabaseLive = Layer.effect(
  Database,
  Effect.gen(function* () {
    const config = yield* AppConfig
    return yield* makeDatabase(config.databaseUrl)
  })
)

const UserRepoLive = Layer.effect(UserRepo, Effect.map(Database, makeUserRepo))

const MainLive = UserRepoLive.pipe(
  Layer.provide(DatabaseLive),
  Layer.provide(ConfigLive)
)

Effect.runPromise(program.pipe(Effect.provide(MainLive)))"#,
        }],
        updated: "2025-10-20T13:30:00.000Z",
    },
    Pattern {
        id: "service-test-layer",
        title: "Swap Implementations in Tests with a Test Layer",
        category: "service",
        difficulty: "intermediate",
        summary: "Provide an in-memory Layer for a service in tests so the program under test runs unchanged, fast and deterministic, with @effect/vitest.",
        description: "Because Effect programs declare their dependencies in the type, tests can provide a different Layer for the same service: an in-memory mailer, a fixed clock, a fake repository. Combined with it.effect from @effect/vitest, each test runs the real program logic against controlled dependencies.",
        tags: &["Layer.sync", "testing", "@effect/vitest", "service", "Effect"],
        use_when: "For unit tests of code that talks to external systems through services.",
        avoid_when: "For end-to-end tests that must exercise the real dependency.",
        sections: &[],
        examples: &[Example {
            description: "An in-memory mailer records what was sent",
            code: r#"import { it, expect } from "@effect/vitest"
import { Effect, Layer } from "effect"

const sent: Array<string> = []
const MailerTest = Layer.succeed(Mailer, {
  send: (to: string) => Effect.sync(() => { sent.push(to) })
})

it.effect("sends a welcome mail on signup", () =>
  Effect.gen(function* () {
    yield* signup({ email: "ada@example.com" })
    expect(sent).toEqual(["ada@example.com"])
  }).pipe(Effect.provide(MailerTest))
)"#,
        }],
        updated: "2025-10-21T15:10:00.000Z",
    },
    Pattern {
        id: "service-scoped-layer",
        title: "Build Services with Lifecycles using Layer.scoped",
        category: "service",
        difficulty: "advanced",
        summary: "Use Layer.scoped with Effect.acquireRelease so a service that owns a resource (a pool, a socket) is opened once and closed when the layer's scope ends.",
        description: "Some services own resources that must be closed. Layer.scoped builds the service inside a Scope: finalizers registered with Effect.acquireRelease or Effect.addFinalizer run when the application shuts down or the test that provided the layer finishes, in reverse order of acquisition.",
        tags: &["Layer.scoped", "Effect.acquireRelease", "Scope", "service", "lifecycle"],
        use_when: "For services wrapping connection pools, clients with sockets, background fibers.",
        avoid_when: "For stateless services: Layer.succeed or Layer.effect is simpler.",
        sections: &[],
        examples: &[Example {
            description: "A connection pool that is closed with the layer",
            code: r#"import { Effect, Layer } from "effect"

const DbPoolLive = Layer.scoped(
  DbPool,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const pool = yield* Effect.acquireRelease(
      Effect.tryPromise(() => createPool({ connectionString: config.databaseUrl })),
      (pool) => Effect.promise(() => pool.end())
    )
    yield* Effect.addFinalizer(() => Effect.logInfo("database pool closed"))
    return pool
  })
)"#,
        }],
        updated: "2025-11-02T12:00:00.000Z",
    },
    // ── validation ────────────────────────────────────────────────────────────────────────────
    Pattern {
        id: "validation-schema-decode",
        title: "Decode Unknown Input with Schema.decodeUnknown",
        category: "validation",
        difficulty: "beginner",
        summary: "Describe the expected shape once with Schema and decode untrusted input with Schema.decodeUnknown, getting a typed value or a ParseError in the Effect error channel.",
        description: "Request bodies, environment variables and messages from queues are `unknown` until checked. A Schema is both the runtime validator and the static type. Schema.decodeUnknown returns an Effect that succeeds with the typed value or fails with a ParseError describing every mismatch.",
        tags: &["Schema", "Schema.decodeUnknown", "ParseError", "validation", "Effect"],
        use_when: "At every trust boundary: HTTP handlers, CLI arguments, files, message consumers.",
        avoid_when: "For data you constructed yourself in typed code: re-validating it only costs time.",
        sections: &[],
        examples: &[Example {
            description: "Validate a signup request body",
            code: r#"import { Effect, Schema } from "effect"

const SignupRequest = Schema.Struct({
  email: Schema.String.pipe(Schema.pattern(/^[^@\s]+@[^@\s]+$/)),
  age: Schema.Number.pipe(Schema.int(), Schema.greaterThanOrEqualTo(13))
})

const handleSignup = (body: unknown) =>
  Schema.decodeUnknown(SignupRequest)(body).pipe(
    Effect.flatMap((request) => createAccount(request))
  )"#,
        }],
        updated: "2025-10-05T10:00:00.000Z",
    },
    Pattern {
        id: "validation-schema-class",
        title: "Model Domain Data with Schema.Class",
        category: "validation",
        difficulty: "beginner",
        summary: "Define domain records with Schema.Class to get a validated constructor, structural equality and room for getters and methods in one declaration.",
        description: "Schema.Class creates a class whose constructor validates its fields against the schema, whose instances compare by value (Equal), and which can carry getters and methods. The same class decodes from JSON with Schema.decodeUnknown, so there is one definition for construction, validation and serialization.",
        tags: &["Schema.Class", "validation", "domain-model", "Equal", "Effect"],
        use_when: "For entities and value objects that are created in code and decoded from the outside.",
        avoid_when: "For throwaway shapes at one call site: Schema.Struct is lighter.",
        sections: &[],
        examples: &[Example {
            description: "A product with a derived getter",
            code: r#"import { Schema } from "effect"

class Product extends Schema.Class<Product>("Product")({
  sku: Schema.NonEmptyTrimmedString,
  priceCents: Schema.Int.pipe(Schema.nonNegative())
}) {
  get price(): string {
    return (this.priceCents / 100).toFixed(2)
  }
}

const mug = new Product({ sku: "MUG-01", priceCents: 1250 })
// new Product({ sku: "", priceCents: -1 }) throws a ParseError"#,
        }],
        updated: "2025-10-06T10:30:00.000Z",
    },
    Pattern {
        id: "validation-branded-types",
        title: "Prevent Mix-ups with Branded Types",
        category: "validation",
        difficulty: "intermediate",
        summary: "Brand primitive values (ids, emails, amounts) with Schema.brand so a UserId can never be passed where an OrderId is expected, and only validated values carry the brand.",
        description: "Two strings with different meanings have the same TypeScript type. Schema.brand adds a nominal brand to the decoded type, and the only way to obtain a branded value is to decode (or `make`) it through the schema, so every UserId in the program has passed validation.",
        tags: &["Schema.brand", "Brand", "validation", "nominal-types", "Effect"],
        use_when: "For identifiers and units that are easy to confuse and costly to mix up.",
        avoid_when: "For values that are never passed around far from where they are validated.",
        sections: &[],
        examples: &[Example {
            description: "Two id brands that cannot be swapped",
            code: r#"import { Schema } from "effect"

const UserId = Schema.String.pipe(Schema.pattern(/^usr_[a-z0-9]{12}$/), Schema.brand("UserId"))
type UserId = typeof UserId.Type

const OrderId = Schema.String.pipe(Schema.pattern(/^ord_[a-z0-9]{12}$/), Schema.brand("OrderId"))
type OrderId = typeof OrderId.Type

declare const cancelOrder: (user: UserId, order: OrderId) => Effect.Effect<void>

const user = UserId.make("usr_4f9a01b2c3d4")
// cancelOrder(orderId, user) does not compile"#,
        }],
        updated: "2025-10-14T09:40:00.000Z",
    },
    Pattern {
        id: "validation-accumulate-errors",
        title: "Report All Validation Errors at Once",
        category: "validation",
        difficulty: "intermediate",
        summary: "Decode with `{ errors: \"all\" }` or use Effect.validateAll so users see every invalid field in one response instead of fixing them one by one.",
        description: "By default Schema stops at the first problem, which is right for internal data but frustrating for forms. Passing `{ errors: \"all\" }` collects every issue in the ParseError; ArrayFormatter turns it into a list of paths and messages. For effectful checks, Effect.validateAll runs them all and accumulates failures.",
        tags: &["Schema", "ArrayFormatter", "Effect.validateAll", "validation", "forms"],
        use_when: "For user-facing input such as forms and configuration files.",
        avoid_when: "In hot paths over trusted data, where failing fast is cheaper.",
        sections: &[],
        examples: &[Example {
            description: "Collect every problem with a registration form",
            code: r#"import { Either, Schema, ParseResult } from "effect"

const decodeForm = Schema.decodeUnknownEither(RegistrationForm, { errors: "all" })

const result = decodeForm(input)
if (Either.isLeft(result)) {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(result.left)
  // [{ path: ["email"], message: "..." }, { path: ["age"], message: "..." }]
  return { status: 422, issues }
}"#,
        }],
        updated: "2025-10-16T11:00:00.000Z",
    },
    Pattern {
        id: "validation-schema-transform",
        title: "Transform Between Wire and Domain Forms with Schema.transform",
        category: "validation",
        difficulty: "advanced",
        summary: "Use Schema.transform and Schema.transformOrFail to decode wire formats (strings, cents, ISO dates) into domain types and encode them back symmetrically.",
        description: "A schema has an encoded side and a decoded side. Schema.transform maps between two schemas with pure functions; Schema.transformOrFail allows the mapping to fail with a ParseResult issue. Encoding runs the mapping backwards, so the same definition serves both reading and writing.",
        tags: &["Schema.transform", "Schema.transformOrFail", "ParseResult", "validation", "Effect"],
        use_when: "When the wire representation differs from the one your code wants to work with.",
        avoid_when: "When a built-in schema already does it (Schema.NumberFromString, Schema.DateFromString).",
        sections: &[Section {
            title: "Keep it reversible",
            kind: "pitfalls",
            content: "If encode is not the inverse of decode, round-trips silently change data. Test decode(encode(x)) for representative values.",
        }],
        examples: &[Example {
            description: "Dollars on the wire, integer cents in the domain",
            code: r#"import { ParseResult, Schema } from "effect"

const CentsFromDollars = Schema.transformOrFail(Schema.String, Schema.Int, {
  strict: true,
  decode: (dollars, _, ast) => {
    const value = Number(dollars)
    return Number.isFinite(value)
      ? ParseResult.succeed(Math.round(value * 100))
      : ParseResult.fail(new ParseResult.Type(ast, dollars, "not an amount"))
  },
  encode: (cents) => ParseResult.succeed((cents / 100).toFixed(2))
})"#,
        }],
        updated: "2025-11-06T15:45:00.000Z",
    },
    // ── concurrency ───────────────────────────────────────────────────────────────────────────
    Pattern {
        id: "concurrency-effect-all",
        title: "Run Independent Effects in Parallel with Effect.all",
        category: "concurrency",
        difficulty: "beginner",
        summary: "Run independent effects together with Effect.all or Effect.forEach and a `concurrency` option, keeping results in input order and interrupting the rest on the first failure.",
        description: "Effect.all accepts a tuple, array or record of effects; with `{ concurrency: \"unbounded\" }` or a number they run in parallel. Effect.forEach maps a collection to effects with the same option. Results keep the input order, and by default the first failure interrupts the remaining effects.",
        tags: &["Effect.all", "Effect.forEach", "concurrency", "parallelism"],
        use_when: "For independent requests, such as loading a page's data from several services.",
        avoid_when: "When effects depend on each other's results: sequence them with Effect.gen.",
        sections: &[],
        examples: &[Example {
            description: "Load a dashboard's data in parallel, and users five at a time",
            code: r#"import { Effect } from "effect"

const dashboard = Effect.all(
  { user: fetchUser(id), orders: fetchOrders(id), alerts: fetchAlerts(id) },
  { concurrency: "unbounded" }
)

const users = Effect.forEach(userIds, fetchUser, { concurrency: 5 })"#,
        }],
        updated: "2025-10-04T08:00:00.000Z",
    },
    Pattern {
        id: "concurrency-fork-join",
        title: "Run Background Work with Fibers: fork, join, interrupt",
        category: "concurrency",
        difficulty: "intermediate",
        summary: "Start work in the background with Effect.fork, wait for its result with Fiber.join, and cancel it with Fiber.interrupt, with finalizers always running.",
        description: "A fiber is a lightweight virtual thread. Effect.fork starts an Effect on a new fiber supervised by its parent, Fiber.join waits for its result (and its error), and Fiber.interrupt cancels it, running its finalizers. Child fibers are interrupted automatically when their parent finishes.",
        tags: &["Effect.fork", "Fiber.join", "Fiber.interrupt", "concurrency", "fibers"],
        use_when: "When work should start now and be awaited (or cancelled) later.",
        avoid_when: "When you just want several effects' results: Effect.all is simpler.",
        sections: &[Section {
            title: "Supervision",
            kind: "notes",
            content: "Effect.fork ties the child to its parent's lifetime; Effect.forkDaemon does not, and Effect.forkScoped ties it to a Scope.",
        }],
        examples: &[Example {
            description: "Prefetch while doing other work",
            code: r#"import { Effect, Fiber } from "effect"

const program = Effect.gen(function* () {
  const prefetch = yield* Effect.fork(loadRecommendations(userId))
  const profile = yield* loadProfile(userId)
  const recommendations = profile.wantsRecommendations
    ? yield* Fiber.join(prefetch)
    : yield* Fiber.interrupt(prefetch).pipe(Effect.as([]))
  return { profile, recommendations }
})"#,
        }],
        updated: "2025-10-18T10:20:00.000Z",
    },
    Pattern {
        id: "concurrency-race-timeout",
        title: "Race Effects and Bound Them with Timeouts",
        category: "concurrency",
        difficulty: "intermediate",
        summary: "Use Effect.race to take the first of two effects to succeed and Effect.timeout or Effect.timeoutFail to bound how long an effect may run; losers are interrupted.",
        description: "Effect.race runs two effects concurrently and returns the first success, interrupting the other. Effect.timeout fails with a TimeoutException when the duration passes, Effect.timeoutFail with your own error. Because interruption runs finalizers, the abandoned work is cleaned up.",
        tags: &["Effect.race", "Effect.timeout", "Effect.timeoutFail", "concurrency", "interruption"],
        use_when: "For hedged requests to replicas, and for any call that must not hang forever.",
        avoid_when: "When the losing effect has side effects that must complete anyway: make it uninterruptible or fork it as a daemon.",
        sections: &[],
        examples: &[Example {
            description: "Hedge a read across two replicas with an overall timeout",
            code: r#"import { Duration, Effect } from "effect"

const price = Effect.race(
  readFrom("replica-a", sku),
  readFrom("replica-b", sku).pipe(Effect.delay(Duration.millis(50)))
).pipe(
  Effect.timeoutFail({
    duration: Duration.seconds(2),
    onTimeout: () => new PriceUnavailable({ sku })
  })
)"#,
        }],
        updated: "2025-10-19T17:00:00.000Z",
    },
    Pattern {
        id: "concurrency-semaphore",
        title: "Limit Concurrent Access with a Semaphore",
        category: "concurrency",
        difficulty: "advanced",
        summary: "Create a semaphore with Effect.makeSemaphore and wrap effects with withPermits to cap how many run at once across the whole program, not just one Effect.all.",
        description: "A `concurrency` option limits parallelism within one combinator. A semaphore limits it globally: every effect wrapped with `semaphore.withPermits(n)` waits for permits, so at most N calls to a rate-limited API are in flight regardless of which fiber makes them. Permits are released on success, failure and interruption.",
        tags: &["Effect.makeSemaphore", "Semaphore", "concurrency", "rate-limiting", "Effect"],
        use_when: "For shared limits: a third-party API quota, a database with few connections.",
        avoid_when: "For a single batch where Effect.forEach's concurrency option already expresses the limit.",
        sections: &[],
        examples: &[Example {
            description: "At most three calls to the geocoder at a time, program-wide",
            code: r#"import { Effect } from "effect"

const program = Effect.gen(function* () {
  const geocoderPermits = yield* Effect.makeSemaphore(3)
  const geocode = (address: string) =>
    geocoderPermits.withPermits(1)(callGeocoder(address))

  yield* Effect.forEach(addresses, geocode, { concurrency: "unbounded" })
})"#,
        }],
        updated: "2025-11-01T09:30:00.000Z",
    },
    Pattern {
        id: "concurrency-queue-workers",
        title: "Coordinate Producers and Consumers with Queue",
        category: "concurrency",
        difficulty: "advanced",
        summary: "Decouple producers from a fixed pool of worker fibers with a bounded Queue, getting back-pressure when consumers fall behind and clean shutdown with the scope.",
        description: "Queue.bounded gives an asynchronous queue whose offer suspends when it is full, so fast producers slow down instead of exhausting memory. A fixed number of workers forked with Effect.forkScoped take from it in a loop with Effect.forever, and are interrupted when the scope closes.",
        tags: &["Queue", "Queue.bounded", "Effect.forkScoped", "concurrency", "back-pressure"],
        use_when: "For job processing with bounded parallelism and bursts of incoming work.",
        avoid_when: "For a fixed, known collection: Effect.forEach with concurrency is simpler.",
        sections: &[],
        examples: &[Example {
            description: "Four workers draining a bounded job queue",
            code: r#"import { Effect, Queue } from "effect"

const processJobs = Effect.gen(function* () {
  const jobs = yield* Queue.bounded<Job>(100)
  const worker = Queue.take(jobs).pipe(Effect.flatMap(handleJob), Effect.forever)
  yield* Effect.forkScoped(Effect.all(Array.from({ length: 4 }, () => worker), { concurrency: "unbounded" }))
  yield* Effect.forEach(incomingJobs, (job) => Queue.offer(jobs, job), { discard: true })
}).pipe(Effect.scoped)"#,
        }],
        updated: "2025-11-03T14:15:00.000Z",
    },
    // ── resource-management ───────────────────────────────────────────────────────────────────
    Pattern {
        id: "resource-acquire-release",
        title: "Acquire and Release Resources Safely with Effect.acquireRelease",
        category: "resource-management",
        difficulty: "beginner",
        summary: "Pair every acquisition with its release using Effect.acquireRelease, so files, connections and locks are freed on success, failure and interruption alike.",
        description: "Effect.acquireRelease(acquire, release) returns a scoped Effect: the release action is registered in the current Scope as soon as acquisition succeeds and runs when the scope closes, whatever the outcome. Effect.scoped closes the scope around the code that uses the resource.",
        tags: &["Effect.acquireRelease", "Effect.scoped", "Scope", "resource-management"],
        use_when: "For anything that must be closed: file handles, sockets, database transactions, temporary directories.",
        avoid_when: "For plain values that need no cleanup.",
        sections: &[],
        examples: &[Example {
            description: "A database connection that is always returned",
            code: r#"import { Effect } from "effect"

const connection = Effect.acquireRelease(
  Effect.tryPromise(() => pool.connect()),
  (client) => Effect.sync(() => client.release())
)

const countUsers = Effect.scoped(
  Effect.gen(function* () {
    const client = yield* connection
    const result = yield* Effect.tryPromise(() => client.query("select count(*) from users"))
    return Number(result.rows[0].count)
  })
)"#,
        }],
        updated: "2025-10-07T09:00:00.000Z",
    },
    Pattern {
        id: "resource-ensuring-finalizers",
        title: "Run Cleanup with Effect.ensuring and Effect.onExit",
        category: "resource-management",
        difficulty: "beginner",
        summary: "Attach cleanup that must always run with Effect.ensuring, or inspect how an Effect ended with Effect.onExit, the Effect version of try/finally.",
        description: "Effect.ensuring runs a finalizer after an Effect completes, fails or is interrupted. Effect.onExit passes the Exit value to the finalizer, so cleanup can differ on success and failure (commit or roll back, log a metric with the outcome). Finalizers themselves are uninterruptible.",
        tags: &["Effect.ensuring", "Effect.onExit", "Exit", "resource-management", "finalizers"],
        use_when: "For cleanup tied to one Effect rather than to an acquired resource.",
        avoid_when: "When the cleanup needs the acquired resource: Effect.acquireRelease expresses that pairing.",
        sections: &[],
        examples: &[Example {
            description: "Commit or roll back depending on the outcome",
            code: r#"import { Effect, Exit } from "effect"

const transfer = moveFunds(from, to, amount).pipe(
  Effect.onExit((exit) =>
    Exit.isSuccess(exit) ? tx.commit : tx.rollback
  ),
  Effect.ensuring(Effect.logDebug("transfer finished"))
)"#,
        }],
        updated: "2025-10-07T11:30:00.000Z",
    },
    Pattern {
        id: "resource-scoped-effects",
        title: "Manage Resource Lifetimes with Scope",
        category: "resource-management",
        difficulty: "intermediate",
        summary: "Let several resources share one Scope: acquire them with Effect.acquireRelease or Effect.addFinalizer and close them all, in reverse order, with Effect.scoped.",
        description: "A Scope collects finalizers. Effects that need one show `Scope` in their requirements, and Effect.scoped provides a fresh scope and closes it when the inner Effect ends. Resources acquired in the same scope are released in reverse order, so a transaction closes before the connection it runs on.",
        tags: &["Scope", "Effect.scoped", "Effect.addFinalizer", "resource-management", "lifetimes"],
        use_when: "When several resources live and die together, or a resource's lifetime spans several functions.",
        avoid_when: "When a single acquire/use/release fits in one expression: Effect.acquireUseRelease reads more directly.",
        sections: &[],
        examples: &[Example {
            description: "A temporary directory and a file inside it, released in reverse order",
            code: r#"import { Effect } from "effect"
import { FileSystem } from "@effect/platform"

const exportReport = Effect.scoped(
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped()
    const file = yield* fs.open(`${dir}/report.csv`, { flag: "w" })
    yield* Effect.addFinalizer(() => Effect.logInfo("report export finished"))
    yield* writeRows(file, rows)
    return yield* uploadFile(`${dir}/report.csv`)
  })
)"#,
        }],
        updated: "2025-10-22T10:10:00.000Z",
    },
    Pattern {
        id: "resource-pool",
        title: "Reuse Expensive Resources with Pool",
        category: "resource-management",
        difficulty: "advanced",
        summary: "Create a bounded Pool of expensive resources (browsers, connections) with Pool.make, borrow one with Pool.get in a scope, and let Effect return it automatically.",
        description: "Pool.make builds a scoped pool of up to `size` items from an acquiring Effect. Pool.get borrows an item for the current Scope and returns it when the scope closes; items whose use failed can be invalidated. Pool.makeWithTTL grows and shrinks between a minimum and maximum.",
        tags: &["Pool", "Pool.make", "Pool.get", "resource-management", "Effect"],
        use_when: "When creating a resource is slow and many fibers need one for a short time.",
        avoid_when: "When the client library already pools (most database drivers do).",
        sections: &[],
        examples: &[Example {
            description: "A pool of headless browsers for rendering PDFs",
            code: r#"import { Effect, Pool } from "effect"

const renderAll = Effect.gen(function* () {
  const browsers = yield* Pool.make({
    acquire: Effect.acquireRelease(launchBrowser, (browser) => Effect.promise(() => browser.close())),
    size: 4
  })
  const render = (url: string) =>
    Effect.scoped(Effect.flatMap(Pool.get(browsers), (browser) => renderPdf(browser, url)))
  return yield* Effect.forEach(urls, render, { concurrency: 8 })
}).pipe(Effect.scoped)"#,
        }],
        updated: "2025-11-05T16:20:00.000Z",
    },
    // ── streams ───────────────────────────────────────────────────────────────────────────────
    Pattern {
        id: "stream-from-iterable",
        title: "Create Streams from Iterables and Effects",
        category: "streams",
        difficulty: "beginner",
        summary: "Start a Stream from values you have (Stream.make, Stream.fromIterable) or from effects (Stream.fromEffect, Stream.repeatEffect), then run it into an Effect with Stream.runCollect.",
        description: "A Stream is a lazy, possibly infinite sequence of values produced by effects. Constructors lift existing data and effects into streams, operators like Stream.map and Stream.filter transform them, and a run function such as Stream.runCollect or Stream.runForEach turns the stream back into an Effect.",
        tags: &["Stream", "Stream.fromIterable", "Stream.runCollect", "streams", "Effect"],
        use_when: "When data arrives over time or is too large to hold in memory at once.",
        avoid_when: "For small in-memory collections: arrays and Effect.forEach are simpler.",
        sections: &[],
        examples: &[Example {
            description: "From an array, and from a repeated effect",
            code: r#"import { Chunk, Effect, Schedule, Stream } from "effect"

const evens = Stream.fromIterable([1, 2, 3, 4, 5, 6]).pipe(
  Stream.filter((n) => n % 2 === 0),
  Stream.map((n) => n * 10)
)

const samples = Stream.repeatEffectWithSchedule(readSensor, Schedule.spaced("1 second")).pipe(
  Stream.take(10)
)

Effect.runPromise(Stream.runCollect(evens)).then(Chunk.toReadonlyArray) // [20, 40, 60]"#,
        }],
        updated: "2025-10-10T09:00:00.000Z",
    },
    Pattern {
        id: "stream-map-effect-concurrency",
        title: "Process Stream Elements Concurrently with Stream.mapEffect",
        category: "streams",
        difficulty: "intermediate",
        summary: "Apply an effectful function to each element with Stream.mapEffect and a `concurrency` option to overlap I/O while keeping output order and back-pressure.",
        description: "Stream.mapEffect runs an Effect per element. With `{ concurrency: n }` up to n run at once and results are emitted in input order; with `unordered: true` they are emitted as they complete. The stream only pulls new elements when there is capacity, so memory stays bounded.",
        tags: &["Stream.mapEffect", "concurrency", "streams", "back-pressure", "Effect"],
        use_when: "For per-element I/O in pipelines: enriching records, uploading files, calling APIs.",
        avoid_when: "For CPU-bound pure transformations: Stream.map is enough.",
        sections: &[],
        examples: &[Example {
            description: "Enrich orders with customer data, eight requests in flight",
            code: r#"import { Stream } from "effect"

const enriched = orders.pipe(
  Stream.mapEffect(
    (order) => fetchCustomer(order.customerId).pipe(Effect.map((customer) => ({ ...order, customer }))),
    { concurrency: 8 }
  )
)"#,
        }],
        updated: "2025-10-24T13:00:00.000Z",
    },
    Pattern {
        id: "stream-grouped-batching",
        title: "Batch Stream Elements with Stream.groupedWithin",
        category: "streams",
        difficulty: "intermediate",
        summary: "Group elements into chunks by size with Stream.grouped, or by size or time with Stream.groupedWithin, to write to databases and APIs in efficient batches.",
        description: "Many sinks are cheaper per element in bulk. Stream.grouped(n) emits chunks of n elements; Stream.groupedWithin(n, duration) emits a chunk when it is full or when the duration has passed, so slow periods do not delay writes indefinitely. Each chunk is then written with one Effect.",
        tags: &["Stream.grouped", "Stream.groupedWithin", "batching", "streams", "Effect"],
        use_when: "For bulk inserts, batched API calls and log shipping.",
        avoid_when: "When each element must be handled individually and immediately.",
        sections: &[],
        examples: &[Example {
            description: "Insert events in batches of 500 or every second",
            code: r#"import { Effect, Stream } from "effect"

const pipeline = events.pipe(
  Stream.groupedWithin(500, "1 second"),
  Stream.mapEffect((batch) => insertEvents(batch), { concurrency: 2 }),
  Stream.runDrain
)"#,
        }],
        updated: "2025-10-25T08:30:00.000Z",
    },
    Pattern {
        id: "stream-resource-scoped",
        title: "Stream from Resources that Must Be Closed",
        category: "streams",
        difficulty: "advanced",
        summary: "Build streams over files, sockets and cursors with Stream.acquireRelease or Stream.scoped so the resource is closed when the stream ends, fails or is interrupted.",
        description: "A stream that reads from a resource owns it for exactly as long as the stream runs. Stream.acquireRelease opens it when the stream starts and registers the release; Stream.scoped lifts any scoped Effect. With @effect/platform, FileSystem.stream plus Stream.decodeText and Stream.splitLines reads a file line by line.",
        tags: &["Stream.acquireRelease", "Stream.scoped", "Scope", "streams", "resource-management"],
        use_when: "For reading large files, database cursors and network connections as streams.",
        avoid_when: "When the data fits in memory and is read once: read it with a single Effect.",
        sections: &[],
        examples: &[Example {
            description: "Count error lines in a large log file",
            code: r#"import { Effect, Stream } from "effect"
import { FileSystem } from "@effect/platform"

const countErrors = (path: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    return yield* fs.stream(path).pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.filter((line) => line.includes("ERROR")),
      Stream.runCount
    )
  })"#,
        }],
        updated: "2025-11-07T10:45:00.000Z",
    },
    Pattern {
        id: "stream-run-sink",
        title: "Consume Streams with Sink",
        category: "streams",
        difficulty: "advanced",
        summary: "Describe how a stream is consumed as a reusable Sink (Sink.sum, Sink.foldLeft, Sink.forEach) and run it with Stream.run, separating production from consumption.",
        description: "A Sink is the consumer side of a stream: it pulls elements, may keep state, and produces a result (and possibly leftovers). Built-in sinks count, sum, collect and fold; Sink.zip runs two at once. Stream.run(stream, sink) returns an Effect with the sink's result.",
        tags: &["Sink", "Stream.run", "Sink.foldLeft", "streams", "Effect"],
        use_when: "When the same consumption logic applies to several streams, or you need several aggregates in one pass.",
        avoid_when: "For a single simple aggregate: Stream.runFold or Stream.runCount reads more directly.",
        sections: &[],
        examples: &[Example {
            description: "Total and maximum of order amounts in one pass",
            code: r#"import { Sink, Stream } from "effect"

const total = Sink.sum
const largest = Sink.foldLeft(0, (max: number, n: number) => Math.max(max, n))

const report = orders.pipe(
  Stream.map((order) => order.amountCents),
  Stream.run(Sink.zip(total, largest, { concurrent: true }))
)
// report: Effect<[number, number], OrderError>"#,
        }],
        updated: "2025-11-08T12:00:00.000Z",
    },
];
