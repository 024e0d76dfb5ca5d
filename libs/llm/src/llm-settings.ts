import { AppConfig } from '@app/config';

/** What the LLM client needs; `null` base URL or model means "not configured". */
export interface LlmSettings {
  baseUrl: string | null;
  apiKey: string | null;
  model: string | null;
  /** Model for query planning and digests; falls back to `model`. */
  plannerModel: string | null;
}

/** Which configured model a call uses. */
export type LlmModelRole = 'default' | 'planner';

/** The LLM settings of the validated app config. */
export function llmSettings(config: AppConfig): LlmSettings {
  const { baseUrl, apiKey, model, queryPlannerModel } = config.llm;
  return { baseUrl, apiKey, model, plannerModel: queryPlannerModel };
}
