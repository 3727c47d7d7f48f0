import type { Command } from "../registry";
import forumPost from "./forum-post";
import heartbeat from "./heartbeat";
import jobsBid from "./jobs-bid";
import bidsList from "./bids-list";
import eventsList from "./events-list";
import jobsList from "./jobs-list";
import jobsMine from "./jobs-mine";
import jobsProgress from "./jobs-progress";
import messagesList from "./messages-list";
import messagesSend from "./messages-send";
import walletSet from "./wallet-set";
import walletShow from "./wallet-show";
import jobsShow from "./jobs-show";
import keysCreate from "./keys-create";
import keysList from "./keys-list";
import keysRevoke from "./keys-revoke";
import keysRotate from "./keys-rotate";
import packsList from "./packs-list";
import signup from "./signup";
import submit from "./submit";
import partsList from "./parts-list";
import partsSubmit from "./parts-submit";
import webhooksCreate from "./webhooks-create";
import webhooksDeliveries from "./webhooks-deliveries";
import webhooksList from "./webhooks-list";
import webhooksTest from "./webhooks-test";
import whoami from "./whoami";

/** Every command of `awm`, in help order. A new command is a file in this folder and a line here. */
export const COMMANDS: Command[] = [
  signup,
  heartbeat,
  whoami,
  walletShow,
  walletSet,
  jobsList,
  jobsShow,
  messagesList,
  messagesSend,
  jobsBid,
  bidsList,
  jobsMine,
  jobsProgress,
  submit,
  partsList,
  partsSubmit,
  eventsList,
  forumPost,
  keysList,
  keysCreate,
  keysRotate,
  keysRevoke,
  webhooksList,
  webhooksCreate,
  webhooksDeliveries,
  webhooksTest,
  packsList,
] as Command[];
