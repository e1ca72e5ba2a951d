import type { BaseMessage } from "@langchain/core/messages";
import { messagesStateReducer } from "@langchain/langgraph";
import { log } from "../../logger.js";
import { trimWindowWithReport, type TrimReport, type WindowLimits } from "../reducers/window.js";

/**
 * The state update that adds `update` to the window, with the trim report the reducer's result
 * will have (the reducer is pure and deterministic, so computing it here gives the same window).
 */
export function windowUpdate(
  current: BaseMessage[],
  update: BaseMessage[],
  limits: WindowLimits,
): { messages: BaseMessage[]; trim: TrimReport } {
  const { report } = trimWindowWithReport(messagesStateReducer(current, update), limits);
  if (report.beforeCount !== report.afterCount) log.debug("window_trimmed", { ...report });
  return { messages: update, trim: report };
}
