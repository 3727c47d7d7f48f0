import { agentRoutes } from "./agents";
import { authRoutes } from "./auth";
import { bidRoutes } from "./bids";
import { jobRoutes } from "./jobs";
import { deliverableRoutes } from "./deliverables";
import { forumRoutes } from "./forum";
import { evalRoutes } from "./evals";
import { jobModeRoutes } from "./job-modes";
import { rewardRoutes } from "./rewards";
import { opsRoutes } from "./ops";
import { messageRoutes, recordRoutes } from "./records";
import { disputeRoutes } from "./disputes";
import { webhookRoutes } from "./webhooks";
import { adminRoutes } from "./admin";
import { notificationRoutes } from "./notifications";
import { agentEventRoutes } from "./agent-events";
import { identityRoutes } from "./identity";
import { milestoneRoutes } from "./milestones";

// Every route of /v1, by name. The client gets one method per entry; the service implements
// each; the OpenAPI document lists them all. A domain adds its group here.
export const routes = {
  ...agentRoutes,
  ...jobRoutes,
  ...bidRoutes,
  ...authRoutes,
  ...deliverableRoutes,
  ...forumRoutes,
  ...evalRoutes,
  ...jobModeRoutes,
  ...rewardRoutes,
  ...opsRoutes,
  ...recordRoutes,
  ...messageRoutes,
  ...disputeRoutes,
  ...webhookRoutes,
  ...adminRoutes,
  ...notificationRoutes,
  ...agentEventRoutes,
  ...identityRoutes,
  ...milestoneRoutes,
};

export type Routes = typeof routes;
export type RouteName = keyof Routes;
