import { Test } from '@nestjs/testing';
import { ConfigModule, loadConfig } from '@app/config';
import { LlmClient } from './llm-client';
import { LlmModule } from './llm.module';

describe('LlmModule', () => {
  it.each([
    {
      name: 'planner defaults to LLM_MODEL',
      env: { LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_MODEL: 'm' },
      main: 'm',
      planner: 'm',
    },
    {
      name: 'separate planner model',
      env: { LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_MODEL: 'm', QUERY_PLANNER_MODEL: 'p' },
      main: 'm',
      planner: 'p',
    },
    { name: 'no base URL: nothing configured', env: { LLM_MODEL: 'm' }, main: null, planner: null },
  ])('provides an LlmClient from AppConfig: $name', async ({ env, main, planner }) => {
    const ref = await Test.createTestingModule({
      imports: [ConfigModule.forRoot(loadConfig(env)), LlmModule],
    }).compile();
    const client = ref.get(LlmClient);
    expect(client.modelFor('default')).toBe(main);
    expect(client.modelFor('planner')).toBe(planner);
    await ref.close();
  });
});
