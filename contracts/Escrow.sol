// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";

/// @title Job escrow of the agent work marketplace
/// @notice A poster deposits a job's budget in one ERC-20 (USDC) under the job's 32-byte
/// `escrowJobId`; the marketplace's operator later releases it to the agent (less the fee) or
/// refunds it to the payer.
///
/// Surface: `deposit(bytes32 jobId, uint256 amount)` (after an approve) and
/// `depositWithPermit(bytes32 jobId, uint256 amount, uint256 deadline, uint8 v, bytes32 r,
/// bytes32 s)` for anyone; `release(bytes32 jobId, address payer, address to)` and
/// `refund(bytes32 jobId, address payer)` and `settleSplit(bytes32 jobId, address payer, address
/// agent, uint256 agentShare)` (a dispute ruling) for the operator; for a job paid in parts
/// (milestones) `releasePart`, `refundPart` and `settlePartSplit`, each once per part, with
/// `refund` returning what the parts left (a cancellation) and `getPart` to read a part; `getEscrow(bytes32 jobId, address
/// payer)` and `claim(address to)`; `withdrawFees()` for the operator. Events `Deposited(jobId, payer, amount)`,
/// `Released(jobId, payer, to, amount, fee)`, `Refunded(jobId, to, amount)`,
/// `SplitSettled(jobId, payer, agent, agentAmount, fee, payerAmount)`, `Credited`, `Claimed`,
/// `FeesWithdrawn(to, amount)`.
///
/// @dev Fees accrue in the contract (`feesAccrued`) at each release and split instead of being sent
/// at once: a settlement moves only the parties' money, and the operator sweeps the fees to the
/// immutable `feeRecipient` (the treasury) with `withdrawFees()`, all of what has accrued, once.
///
/// @dev Deposits are keyed by (jobId, payer): every payer has its own slot per job id. A job's
/// id is public, so with one slot per id a stranger could deposit 1 unit first and make the
/// poster's deposit revert forever (or, had it been accepted, decide whose money the job holds).
/// With a slot per payer a stranger's deposit lands in the stranger's slot: the poster still
/// deposits into its own, the service settles exactly the slot it verified at registration
/// (the payer of the registered Deposited event), and release/refund of one slot cannot move
/// another slot's money. Each slot is deposited once and settled once (release or refund).
/// A stray slot (a deposit the service never registered) can be refunded by the operator, and
/// only to its own payer: refunds never name a destination.
///
/// @dev Recipients that the token refuses. USDC can blacklist an address, and then every
/// transfer to it reverts. If release/refund simply reverted, the job's funds would stay stuck
/// until the operator picked another destination, and a blacklisted fee recipient would block
/// every release. So settlement never depends on a recipient being accepted: each payout is
/// attempted with a non-bubbling transfer and, when the token refuses it, the amount is credited
/// to `claimable[recipient]` (event `Credited`) while the job still settles normally. The owner
/// of that address later calls `claim(to)` to move the credit to any address the token accepts.
/// Nothing is ever locked for good, the job's state stays a single source of truth for the
/// service, and the operator needs no discretionary "send it elsewhere" power over user funds.
contract Escrow is ReentrancyGuard {
    using SafeERC20 for IERC20;

    enum State {
        None,
        Funded,
        Released,
        Refunded,
        /// Settled by an arbiter's split ruling: part to the agent (less the fee), the rest back
        /// to the payer. Appended last so the states' numbers stay those off-chain code knows.
        Split,
        /// Every unit of the deposit left the slot through its parts (milestones): see `releasePart`.
        PartsSettled
    }

    /// @dev state (1) + settledBlock (8) + partsSettled (16) share one storage slot.
    struct Deposit {
        State state;
        /// Block in which the job was released or refunded, so off-chain code can fetch the
        /// settlement event with a one-block log query instead of scanning the chain.
        uint64 settledBlock;
        /// Units of the deposit already settled part by part (released, refunded or split): the
        /// whole-job functions then settle only what remains (`amount - partsSettled`).
        uint128 partsSettled;
        uint256 amount;
    }

    /// Caps the fee so a deployment cannot take more than 10% of a budget.
    uint16 public constant MAX_FEE_BPS = 1_000;
    uint256 private constant BPS_DENOMINATOR = 10_000;

    IERC20 public immutable token;
    address public immutable operator;
    address public immutable feeRecipient;
    /// Fee in basis points: 500 = 5%, so a 0.20 budget releases 0.19 and keeps 0.01.
    uint16 public immutable feeBps;

    mapping(bytes32 jobId => mapping(address payer => Deposit)) private _deposits;
    /// Block in which each part of a slot was settled (0 while not): a part settles once.
    mapping(bytes32 jobId => mapping(address payer => mapping(uint256 part => uint64 settledBlock))) private _parts;
    /// Payouts the token refused, claimable by the address they were meant for.
    mapping(address account => uint256) public claimable;
    uint256 public totalClaimable;
    /// Fees of releases not yet withdrawn to the fee recipient.
    uint256 public feesAccrued;

    event Deposited(bytes32 indexed jobId, address indexed payer, uint256 amount);
    /// Settles `payer`'s slot: `amount` is what `to` receives (the deposit less `fee`);
    /// amount + fee = the deposit.
    event Released(bytes32 indexed jobId, address indexed payer, address indexed to, uint256 amount, uint256 fee);
    /// Settles the slot of `to`, the payer, who gets the whole deposit back.
    event Refunded(bytes32 indexed jobId, address indexed to, uint256 amount);
    /// Settles `payer`'s slot by a dispute ruling: `agentAmount` (the agent's share less `fee`)
    /// to `agent`, `payerAmount` back to the payer; agentAmount + fee + payerAmount = the deposit.
    event SplitSettled(
        bytes32 indexed jobId,
        address indexed payer,
        address indexed agent,
        uint256 agentAmount,
        uint256 fee,
        uint256 payerAmount
    );
    /// Part `part` of `payer`'s slot was released: `amount` to `to`, `fee` kept; amount + fee =
    /// the part.
    event PartReleased(
        bytes32 indexed jobId, address indexed payer, uint256 indexed part, address to, uint256 amount, uint256 fee
    );
    /// Part `part` of `payer`'s slot went back to the payer, whole (no fee).
    event PartRefunded(bytes32 indexed jobId, address indexed payer, uint256 indexed part, uint256 amount);
    /// Part `part` settled by a dispute ruling: agentAmount + fee + payerAmount = the part.
    event PartSplitSettled(
        bytes32 indexed jobId,
        address indexed payer,
        uint256 indexed part,
        address agent,
        uint256 agentAmount,
        uint256 fee,
        uint256 payerAmount
    );
    /// A payout for `jobId` that the token refused, now claimable by `account`.
    event Credited(bytes32 indexed jobId, address indexed account, uint256 amount);
    event Claimed(address indexed account, address indexed to, uint256 amount);
    /// The accrued fees, `amount`, were sent to the fee recipient `to`.
    event FeesWithdrawn(address indexed to, uint256 amount);

    error NotOperator(address caller);
    error ZeroAddress();
    error ZeroJobId();
    error ZeroAmount();
    error FeeTooHigh(uint256 feeBps);
    error AlreadyDeposited(bytes32 jobId, address payer);
    error NotFunded(bytes32 jobId, address payer, State state);
    error InvalidRecipient(address to);
    error ShareTooLarge(uint256 agentShare, uint256 deposit);
    error AmountMismatch(uint256 expected, uint256 received);
    error NothingToClaim(address account);
    error NoFeesAccrued();
    error InsufficientGas();
    error PartAlreadySettled(bytes32 jobId, address payer, uint256 part);
    error PartTooLarge(uint256 amount, uint256 remaining);

    modifier onlyOperator() {
        if (msg.sender != operator) revert NotOperator(msg.sender);
        _;
    }

    constructor(IERC20 token_, address operator_, address feeRecipient_, uint16 feeBps_) {
        if (address(token_) == address(0) || operator_ == address(0) || feeRecipient_ == address(0)) {
            revert ZeroAddress();
        }
        if (feeBps_ > MAX_FEE_BPS) revert FeeTooHigh(feeBps_);
        token = token_;
        operator = operator_;
        feeRecipient = feeRecipient_;
        feeBps = feeBps_;
    }

    /// @notice Pulls `amount` from the caller (after an ERC-20 approve) into the caller's slot of
    /// the job's escrow. Reverts when the caller already deposited for this job id; a deposit by
    /// anyone else for the same id does not matter.
    function deposit(bytes32 jobId, uint256 amount) external nonReentrant {
        _deposit(jobId, amount);
    }

    /// @notice Approves through an EIP-2612 permit signed by the caller, then deposits.
    function depositWithPermit(bytes32 jobId, uint256 amount, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
        nonReentrant
    {
        // Anyone can submit a signed permit first (front-running it from the mempool), which
        // would make this call's permit revert although the allowance is in place. So a failed
        // permit is tolerated; the pull below still fails if the allowance does not cover it.
        try IERC20Permit(address(token)).permit(msg.sender, address(this), amount, deadline, v, r, s) {} catch {}
        _deposit(jobId, amount);
    }

    /// @notice Pays `payer`'s deposit for the job less the fee to `to`; the fee stays in the
    /// contract (`feesAccrued`) until `withdrawFees()`. Exactly once per (jobId, payer) slot.
    function release(bytes32 jobId, address payer, address to) external onlyOperator nonReentrant {
        if (to == address(0) || to == address(this)) revert InvalidRecipient(to);
        uint256 amount = _settle(jobId, payer, State.Released);
        uint256 fee = (amount * feeBps) / BPS_DENOMINATOR;
        uint256 net = amount - fee;
        feesAccrued += fee;
        _pay(jobId, to, net);
        emit Released(jobId, payer, to, net, fee);
    }

    /// @notice Sends every accrued fee to the fee recipient (the treasury). Reverts with
    /// `NoFeesAccrued` when there is nothing to send, so a repeated withdrawal is refused rather
    /// than a silent zero transfer. The recipient is immutable: the operator chooses when, never where.
    /// A recipient the token refuses makes it revert, and the fees stay accrued.
    function withdrawFees() external onlyOperator nonReentrant returns (uint256 amount) {
        amount = feesAccrued;
        if (amount == 0) revert NoFeesAccrued();
        feesAccrued = 0;
        token.safeTransfer(feeRecipient, amount);
        emit FeesWithdrawn(feeRecipient, amount);
    }

    /// @notice Returns `payer`'s whole deposit for the job to `payer` (no fee). Exactly once per
    /// slot, and only ever to the payer, so it also returns a stranger's stray deposit safely.
    function refund(bytes32 jobId, address payer) external onlyOperator nonReentrant {
        uint256 amount = _settle(jobId, payer, State.Refunded);
        _pay(jobId, payer, amount);
        emit Refunded(jobId, payer, amount);
    }

    /// @notice Settles `payer`'s deposit for the job as an arbiter ruled a dispute: `agentShare`
    /// of it to `agent` less the fee, the rest back to `payer`. The fee is taken only from the
    /// agent's share (the payer's part is a refund, and refunds carry no fee). Exactly once per
    /// slot, and excluding release and refund: the slot leaves Funded before any token moves.
    /// `agentShare` may be 0 or the whole deposit, though the service uses refund/release then.
    function settleSplit(bytes32 jobId, address payer, address agent, uint256 agentShare)
        external
        onlyOperator
        nonReentrant
    {
        if (agent == address(0) || agent == address(this)) revert InvalidRecipient(agent);
        uint256 amount = _settle(jobId, payer, State.Split);
        if (agentShare > amount) revert ShareTooLarge(agentShare, amount);
        uint256 fee = (agentShare * feeBps) / BPS_DENOMINATOR;
        uint256 agentNet = agentShare - fee;
        uint256 payerAmount = amount - agentShare;
        // The fee accrues like a release's, until withdrawFees() sends it to the treasury.
        feesAccrued += fee;
        if (agentNet > 0) _pay(jobId, agent, agentNet);
        if (payerAmount > 0) _pay(jobId, payer, payerAmount);
        emit SplitSettled(jobId, payer, agent, agentNet, fee, payerAmount);
    }

    /// @notice Releases part `part` (a milestone) of `payer`'s slot: `amount` units of what
    /// remains, to `to` less the fee on that amount only. Each part settles once (release, refund
    /// or split); the parts together never take more than the deposit, and whatever they leave is
    /// what `refund` returns (a cancellation) or `release` pays.
    function releasePart(bytes32 jobId, address payer, uint256 part, uint256 amount, address to)
        external
        onlyOperator
        nonReentrant
    {
        if (to == address(0) || to == address(this)) revert InvalidRecipient(to);
        _settlePart(jobId, payer, part, amount);
        uint256 fee = (amount * feeBps) / BPS_DENOMINATOR;
        uint256 net = amount - fee;
        feesAccrued += fee;
        _pay(jobId, to, net);
        emit PartReleased(jobId, payer, part, to, net, fee);
    }

    /// @notice Returns part `part` of `payer`'s slot, `amount` units, to the payer (no fee). Once per part.
    function refundPart(bytes32 jobId, address payer, uint256 part, uint256 amount) external onlyOperator nonReentrant {
        _settlePart(jobId, payer, part, amount);
        _pay(jobId, payer, amount);
        emit PartRefunded(jobId, payer, part, amount);
    }

    /// @notice Settles part `part` (`amount` units) as a dispute ruling split it: `agentShare` of
    /// it to `agent` less the fee, the rest of the part back to `payer`. Once per part.
    function settlePartSplit(
        bytes32 jobId,
        address payer,
        uint256 part,
        uint256 amount,
        address agent,
        uint256 agentShare
    ) external onlyOperator nonReentrant {
        if (agent == address(0) || agent == address(this)) revert InvalidRecipient(agent);
        if (agentShare > amount) revert ShareTooLarge(agentShare, amount);
        _settlePart(jobId, payer, part, amount);
        uint256 fee = (agentShare * feeBps) / BPS_DENOMINATOR;
        uint256 agentNet = agentShare - fee;
        uint256 payerAmount = amount - agentShare;
        feesAccrued += fee;
        if (agentNet > 0) _pay(jobId, agent, agentNet);
        if (payerAmount > 0) _pay(jobId, payer, payerAmount);
        emit PartSplitSettled(jobId, payer, part, agent, agentNet, fee, payerAmount);
    }

    /// @notice The block in which part `part` of `payer`'s slot settled (0 while it has not), and
    /// what the slot still holds for parts or a whole-job settlement.
    function getPart(bytes32 jobId, address payer, uint256 part)
        external
        view
        returns (uint64 settledBlock, uint256 remaining)
    {
        Deposit storage d = _deposits[jobId][payer];
        uint256 left = d.state == State.Funded ? d.amount - d.partsSettled : 0;
        return (_parts[jobId][payer][part], left);
    }

    /// @notice Sends the caller's claimable credit (payouts the token refused) to `to`.
    function claim(address to) external nonReentrant {
        if (to == address(0) || to == address(this)) revert InvalidRecipient(to);
        uint256 amount = claimable[msg.sender];
        if (amount == 0) revert NothingToClaim(msg.sender);
        claimable[msg.sender] = 0;
        totalClaimable -= amount;
        // Reverts (and so keeps the credit) if the token refuses `to` as well.
        token.safeTransfer(to, amount);
        emit Claimed(msg.sender, to, amount);
    }

    /// @notice `payer`'s slot of a job's escrow: the deposited amount, its state, and the
    /// settlement block (0 while not released or refunded).
    function getEscrow(bytes32 jobId, address payer)
        external
        view
        returns (uint256 amount, State state, uint64 settledBlock)
    {
        Deposit storage d = _deposits[jobId][payer];
        return (d.amount, d.state, d.settledBlock);
    }

    function _deposit(bytes32 jobId, uint256 amount) private {
        if (jobId == bytes32(0)) revert ZeroJobId();
        if (amount == 0) revert ZeroAmount();
        Deposit storage d = _deposits[jobId][msg.sender];
        if (d.state != State.None) revert AlreadyDeposited(jobId, msg.sender);
        // Effects before the external call (checks-effects-interactions, on top of the guard).
        d.state = State.Funded;
        d.amount = amount;

        uint256 before = token.balanceOf(address(this));
        token.safeTransferFrom(msg.sender, address(this), amount);
        // The recorded amount must be what arrived, or releases would pay out other jobs' money
        // (a fee-on-transfer or otherwise odd token).
        uint256 received = token.balanceOf(address(this)) - before;
        if (received != amount) revert AmountMismatch(amount, received);

        emit Deposited(jobId, msg.sender, amount);
    }

    /// Moves a funded slot to its final state before any token moves, so a second release or
    /// refund (sequential or reentrant) finds it settled and reverts.
    function _settle(bytes32 jobId, address payer, State next) private returns (uint256 amount) {
        Deposit storage d = _deposits[jobId][payer];
        if (d.state != State.Funded) revert NotFunded(jobId, payer, d.state);
        d.state = next;
        d.settledBlock = uint64(block.number);
        // What the parts have not taken: the whole deposit when the slot was never settled in parts.
        return d.amount - d.partsSettled;
    }

    /// Marks part `part` of a funded slot settled for `amount` units of what remains, before any
    /// token moves, so a second settlement of the part (sequential or reentrant) reverts. The slot
    /// becomes PartsSettled when its parts have taken the whole deposit.
    function _settlePart(bytes32 jobId, address payer, uint256 part, uint256 amount) private {
        Deposit storage d = _deposits[jobId][payer];
        if (d.state != State.Funded) revert NotFunded(jobId, payer, d.state);
        if (_parts[jobId][payer][part] != 0) revert PartAlreadySettled(jobId, payer, part);
        if (amount == 0) revert ZeroAmount();
        uint256 remaining = d.amount - d.partsSettled;
        if (amount > remaining) revert PartTooLarge(amount, remaining);
        _parts[jobId][payer][part] = uint64(block.number);
        // amount <= remaining <= d.amount, and deposits never come near 2^128 units.
        d.partsSettled += uint128(amount);
        if (amount == remaining) {
            d.state = State.PartsSettled;
            d.settledBlock = uint64(block.number);
        }
    }

    function _pay(bytes32 jobId, address to, uint256 amount) private {
        uint256 gasBefore = gasleft();
        if (token.trySafeTransfer(to, amount)) return;
        // By the 63/64 rule, a transfer that ran out of gas leaves at most 1/64 of what we had.
        // Treat that as the sender's too-low gas limit and revert, so that a gas limit (or a gas
        // estimate) can never push a payout that the token would accept into the claimable path.
        if (gasleft() <= gasBefore / 63) revert InsufficientGas();
        claimable[to] += amount;
        totalClaimable += amount;
        emit Credited(jobId, to, amount);
    }
}
