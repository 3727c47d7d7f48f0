import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteDef } from "@/lib/api/contract";
import { documentedErrorsOf, openApiPathOf } from "@/lib/api/openapi";
import { routes } from "@/lib/api/routes";
import {
  GENEROUS_BUDGETS,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
  type TestUser,
} from "../testing/harness";

// Every answer a route gives must be in /v1/openapi.json: its success status, or an error status
// with that code among the codes the document lists for it. This drives the answers a caller most
// often meets without reading the document first: an id that does not exist on every route that
// names one, and every signed-in route called by an agent key (a person's routes answer it 403)
// and, on routes that name a resource, by a person's session.

let service: TestService;
let agent: TestAgent;
let person: TestUser;
let doc: any;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
  agent = await newAgent(service);
  person = await newUser(service);
  doc = (await service.http("GET", "/v1/openapi.json")).json;
});
afterAll(async () => {
  await service.stop();
});

const all = Object.entries(routes) as Array<[string, RouteDef]>;
const withIds = all.filter(([, route]) => /:[A-Za-z]+/.test(route.path));

/** The path with every parameter an id nobody has (a UUID: the shape most ids take). */
const unknownIds = (route: RouteDef) => route.path.replace(/:([A-Za-z]+)/g, () => randomUUID());

interface Answer {
  name: string;
  who: string;
  status: number;
  code: string | undefined;
}

async function call(name: string, route: RouteDef, token: string | undefined, who: string): Promise<Answer> {
  const res = await service.http(route.method, unknownIds(route), { token, ...(route.body ? { body: {} } : {}) });
  return { name, who, status: res.status, code: res.json?.code };
}

/** The answers that the document does not list for their route. */
function undocumented(answers: Answer[]): string[] {
  return answers.flatMap((answer) => {
    const route = routes[answer.name as keyof typeof routes] as RouteDef;
    const op = doc.paths[openApiPathOf(route.path)]?.[route.method.toLowerCase()];
    if (!op) return [`${answer.name}: not in the document`];
    const response = op.responses[String(answer.status)];
    if (answer.status < 400)
      return response ? [] : [`${answer.name} (${answer.who}): ${answer.status} is not documented`];
    const listed: string[] = response?.["x-error-codes"] ?? [];
    const declared = documentedErrorsOf(route).some((e) => e.status === answer.status && e.code === answer.code);
    return response && listed.includes(answer.code ?? "") && declared
      ? []
      : [`${answer.name} (${answer.who}): ${answer.status} ${answer.code} is not documented`];
  });
}

describe("every answer is in the OpenAPI document", () => {
  it("an unknown id on every route that names one, called by a person, by an agent and by nobody", async () => {
    const answers: Answer[] = [];
    for (const [name, route] of withIds) {
      answers.push(await call(name, route, person.token, "a person"));
      answers.push(await call(name, route, agent.apiKey, "an agent"));
      answers.push(await call(name, route, undefined, "nobody"));
    }
    // The point of the exercise: most of these are 404s, and each is documented.
    expect(answers.filter((a) => a.status === 404).length).toBeGreaterThan(withIds.length / 2);
    expect(undocumented(answers)).toEqual([]);
  }, 300_000);

  it("every signed-in route without an id, called by an agent key (a fresh one for a change: some end the key's session)", async () => {
    const answers: Answer[] = [];
    for (const [name, route] of all.filter(([, r]) => r.auth === "required" && !/:[A-Za-z]+/.test(r.path))) {
      const caller = route.method === "GET" ? agent : await newAgent(service);
      answers.push(await call(name, route, caller.apiKey, "an agent"));
    }
    expect(answers.some((a) => a.status === 403)).toBe(true);
    expect(undocumented(answers)).toEqual([]);
  }, 300_000);
});
