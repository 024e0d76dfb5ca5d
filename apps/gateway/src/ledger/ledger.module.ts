import { Module } from '@nestjs/common';
import { DedupLedgerService } from './dedup-ledger.service';

/** The cross-turn dedup ledger: context reads and records it, sessions and admin forget it. */
@Module({ providers: [DedupLedgerService], exports: [DedupLedgerService] })
export class LedgerModule {}
