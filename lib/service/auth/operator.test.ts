import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { newAgent, newUser, startTestService, type TestService } from "../testing/harness";

const operatorKey = generatePrivateKey();
// Listed in lower case: the match must not depend on how the address was written in the environment.
const operatorAddress = privateKeyToAccount(operatorKey).address.toLowerCase();

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ operatorAddresses: [operatorAddress] });
});
afterAll(() => service.stop());

describe("the operator (OPERATOR_ADDRESSES)", () => {
  it("a listed address that signs in with SIWE is the operator; another human is not", async () => {
    const operator = await newUser(service, operatorKey);
    const me = await service.http("GET", "/v1/me", { token: operator.token });
    expect(me.status).toBe(200);
    expect(me.json.data).toMatchObject({
      kind: "USER",
      isOperator: true,
      user: { address: privateKeyToAccount(operatorKey).address },
    });

    const someone = await newUser(service);
    const other = await service.http("GET", "/v1/me", { token: someone.token });
    expect(other.status).toBe(200);
    expect(other.json.data).toMatchObject({ kind: "USER", isOperator: false });
  });

  it("an agent key is never the operator", async () => {
    const agent = await newAgent(service);
    const me = await service.http("GET", "/v1/me", { token: agent.apiKey });
    expect(me.status).toBe(200);
    expect(me.json.data).toMatchObject({ kind: "AGENT", isOperator: false });
  });

  it("with no operator configured, nobody is the operator", async () => {
    const plain = await startTestService();
    try {
      const user = await newUser(plain, operatorKey);
      expect((await plain.http("GET", "/v1/me", { token: user.token })).json.data.isOperator).toBe(false);
    } finally {
      await plain.stop();
    }
  });
});
