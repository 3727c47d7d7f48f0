// Display names on the HTTP surface: PATCH /v1/me takes a name of 3 to 40 letters, digits, spaces,
// "-", "_" and "." and refuses odd Unicode (invisible characters, direction overrides, mixed
// scripts, full-width forms, combining marks); names are unique among people regardless of case,
// separators and look-alike letters (409 DISPLAY_NAME_TAKEN), decided by the database when people
// race for one; the name shows where the person appears (their profile, their jobs, the forum),
// with their address beside it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENEROUS_BUDGETS, jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
});
afterAll(() => service?.stop());

// Names must be unique on a database other suites and earlier runs share: each test's names carry
// a run tag of letters only (digits would fold into letters in the comparison).
const RUN = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => "abcdefghjkmnpqrstuvwxyz"[b % 23]).join("");

const setName = (token: string, displayName: unknown) =>
  service.http("PATCH", "/v1/me", { token, body: { displayName } });

describe("PATCH /v1/me", () => {
  it("sets the name shown for the person, trimmed; GET /v1/me reads it back", async () => {
    const user = await newUser(service);
    const before = (await service.http("GET", "/v1/me", { token: user.token })).json.data.user;
    expect(before.chosenDisplayName).toBeNull();
    expect(before.displayName).toMatch(/^0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}$/);
    const set = await setName(user.token, `  Ada ${RUN} Lovelace  `);
    expect(set.status, JSON.stringify(set.json)).toBe(200);
    expect(set.json.data).toMatchObject({
      displayName: `Ada ${RUN} Lovelace`,
      chosenDisplayName: `Ada ${RUN} Lovelace`,
      address: user.address,
    });
    const me = (await service.http("GET", "/v1/me", { token: user.token })).json.data.user;
    expect(me.displayName).toBe(`Ada ${RUN} Lovelace`);
    // The same person choosing their own name again, in another case, is no conflict.
    expect((await setName(user.token, `ada ${RUN} lovelace`)).status).toBe(200);
  });

  it("takes letters of any one script, digits and - _ . ; refuses everything else with 400 and changes nothing", async () => {
    const user = await newUser(service);
    for (const good of [`José-${RUN}`, `${RUN}_dev.42`, "Мария Иванова", "山田太郎さん"]) {
      const ok = await setName(user.token, good);
      expect(ok.status, `${good}: ${JSON.stringify(ok.json)}`).toBe(200);
    }
    const current = (await service.http("GET", "/v1/me", { token: user.token })).json.data.user.displayName;
    const bad: Array<[string, unknown]> = [
      ["too short", "ab"],
      ["too long", "a".repeat(41)],
      ["a zero-width space inside", `Ada\u200B${RUN}`],
      ["a zero-width joiner", `Ada\u200D${RUN}`],
      ["a right-to-left override", `\u202E${RUN}gnp.exe`],
      ["a left-to-right mark", `${RUN}\u200E`],
      ["Cyrillic а mixed into Latin (a homoglyph)", `P\u0430ypal${RUN}`],
      ["Greek ο mixed into Latin", `G\u03BFogle${RUN}`],
      ["full-width letters", `Ａｄａ${RUN}`],
      ["a combining accent", `Jose\u0301${RUN}`],
      ["a symbol", `ada!${RUN}`],
      ["an emoji", `ada ${RUN} 🚀`],
      ["Arabic-Indic digits", `ada${RUN}٣`],
      ["two spaces in a row", `ada  ${RUN}`],
      ["a tab", `ada\t${RUN}`],
      ["a wallet address", "0x14dC...9955"],
      ["no letter at all", "123-456"],
      ["not a string", 12345],
    ];
    for (const [why, displayName] of bad) {
      const refused = await setName(user.token, displayName);
      expect(refused.status, why).toBe(400);
      expect(refused.json.code, why).toBe("VALIDATION_FAILED");
    }
    expect((await service.http("PATCH", "/v1/me", { token: user.token, body: {} })).status).toBe(400);
    expect(
      (await service.http("PATCH", "/v1/me", { token: user.token, body: { displayName: `x${RUN}`, admin: true } }))
        .status,
    ).toBe(400);
    expect((await service.http("GET", "/v1/me", { token: user.token })).json.data.user.displayName).toBe(current);
  });

  it("is unique among people without regard to case, separators or look-alike letters: 409 DISPLAY_NAME_TAKEN", async () => {
    const first = await newUser(service);
    const second = await newUser(service);
    expect((await setName(first.token, `Grace ${RUN} Hopper`)).status).toBe(200);
    for (const same of [`grace ${RUN} hopper`, `GRACE_${RUN}.HOPPER`, `Grace-${RUN}-H0pper`]) {
      const taken = await setName(second.token, same);
      expect(taken.status, same).toBe(409);
      expect(taken.json.code).toBe("DISPLAY_NAME_TAKEN");
    }
    // A name written wholly in Cyrillic look-alikes of a Latin one reads the same.
    expect((await setName(first.token, "Opex kat")).status).toBe(200);
    const lookAlike = await setName(second.token, "\u041E\u0440\u0435\u0445 \u043A\u0430\u0442"); // "Орех кат"
    expect(lookAlike.status).toBe(409);
    // The first person's earlier name is free again once they chose another.
    expect((await setName(second.token, `Grace ${RUN} Hopper`)).status).toBe(200);
  });

  it("is a person's own: an agent key and a signed-out caller are refused", async () => {
    const agent = await newAgent(service);
    const refused = await setName(agent.apiKey, `Agent ${RUN} Name`);
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe("FORBIDDEN");
    expect((await service.http("PATCH", "/v1/me", { body: { displayName: `Nobody ${RUN}` } })).status).toBe(401);
  });

  it("shows the name, with the address beside it, on the person's profile, their jobs and their forum posts", async () => {
    const user = await newUser(service);
    const name = `Poster ${RUN} Shown`;
    expect((await setName(user.token, name)).status).toBe(200);
    const profile = (await service.http("GET", `/v1/users/${user.id}/profile`)).json.data;
    expect(profile.user).toMatchObject({ displayName: name, address: user.address });
    const job = (await user.client.createJob({ body: jobInput({ title: `A job by ${RUN}` }) })).data;
    expect(job.poster).toMatchObject({ id: user.id, displayName: name, address: user.address });
    const reader = await newUser(service);
    const board = (await service.http("GET", `/v1/jobs?posterId=${user.id}`, { token: reader.token })).json.data;
    expect(board[0].poster).toMatchObject({ displayName: name, address: user.address });
    const thread = await service.http("POST", "/v1/forum/threads", {
      token: user.token,
      body: {
        title: `Display names in the forum ${RUN}`,
        body: "A person who chose a display name is shown by it in the forum, with the address beside it in small print.",
        category: "agent-lounge",
        intent: "debate",
      },
    });
    expect(thread.status, JSON.stringify(thread.json)).toBe(201);
    expect(thread.json.data.author).toMatchObject({ kind: "USER", name, address: user.address });
  });
});

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))("people racing for one name on PostgreSQL", () => {
  it("of eight people asking for the same name at once, exactly one gets it", async () => {
    const people = await Promise.all(Array.from({ length: 8 }, () => newUser(service)));
    const name = `Racer ${RUN} One`;
    const answers = await Promise.all(people.map((p, i) => setName(p.token, i % 2 ? name.toUpperCase() : name)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused).toHaveLength(7);
    expect(refused.every((a) => a.status === 409 && a.json.code === "DISPLAY_NAME_TAKEN")).toBe(true);
  });
});
