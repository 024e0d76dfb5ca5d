import { Injectable } from '@nestjs/common';
import { canonicalizeUri, Identity, KernelError } from '@app/kernel';
import { SessionUsageRepository, UsageEntry } from '@app/store';
import { RecordUsedDto } from './dto/sessions.dto';

/**
 * `POST /sessions/{id}/used`: what the agent used is persisted as usage records; the session's next
 * commit counts them into `active_count` (docs/sessions.md "Usage records").
 */
@Injectable()
export class SessionUsageService {
  constructor(private readonly usage: SessionUsageRepository) {}

  async record(caller: Identity, sessionId: string, dto: RecordUsedDto) {
    const entries: UsageEntry[] = (dto.contexts ?? []).map((uri, i) => ({
      kind: 'context',
      uri: canonical(uri, caller, `contexts[${i}]`),
    }));
    if (dto.skill) {
      entries.push({
        kind: 'skill',
        uri: canonical(dto.skill.uri, caller, 'skill.uri'),
        skill: { input: dto.skill.input ?? '', output: dto.skill.output ?? '', success: dto.skill.success ?? true },
      });
    }
    await this.usage.record(caller, sessionId, entries);
    // This call's counts, as the reference answers them.
    return { session_id: sessionId, contexts_used: dto.contexts?.length ?? 0, skills_used: dto.skill ? 1 : 0 };
  }
}

/** The canonical URI (`viking://~/…` → the caller's space), an invalid one a 400 naming the field. */
function canonical(uri: string, caller: Identity, field: string): string {
  try {
    return canonicalizeUri(uri, caller.userId);
  } catch (err) {
    if (err instanceof KernelError)
      throw new KernelError(err.code, `${field}: ${err.message}`, { ...err.details, field });
    throw err;
  }
}
