// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable, Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";

/// The EIP-3009 entry USDC (FiatTokenV2_2) has for signatures as bytes (EOA or ERC-1271).
interface IERC3009 {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}

/// @title Job escrow of the agent work marketplace, version 2
/// @notice A payer deposits a job's budget in one ERC-20 (USDC) into its own slot, keyed by
/// (jobId, payer), with an expiry it chooses. Two things hold whatever the operator key does:
///
/// 1. Only the assigned agent or the payer. A slot's agent (the address the agent is paid at) is
///    assigned once, by the payer alone: `assign` sent by the payer with an empty signature, or
///    sent by anyone with the payer's EIP-712 `Assign` signature (ERC-1271 wallets sign too). No
///    function takes a destination from the operator: a release pays the assigned agent, a refund
///    pays the payer, a split divides between those two. Only the agent itself can move its
///    payout to another address (`moveAgent`, `moveAgentWithSig`). The payer may also release to
///    that agent itself (`release`, or its EIP-712 `Approve` that anyone relays:
///    `releaseWithApproval`), and the agent may give the money back to the payer (`refund`):
///    neither needs the service.
/// 2. Money comes back without the service. The operator settles only before the slot's expiry;
///    from the expiry on, anyone may call `claimRefund` and what the slot still holds goes to the
///    payer. No pause, owner, operator or hook stands on that path (the reentrancy guard only
///    refuses a call from inside another call of this contract).
///
/// @dev Kept from version 1: deposits with an approve or an EIP-2612 permit (and new: an EIP-3009
/// authorization anyone may relay, `depositWithAuthorization`); a slot per payer, so
/// a stranger's deposit under a public job id never touches the poster's; payment in parts
/// (milestones), each part settled once and the parts never above the deposit; a fee in basis
/// points on what the agent gets, accrued in the contract and swept to the immutable
/// `feeRecipient`; recipients the token refuses (a USDC blacklist) are credited, and claim to
/// another address later; checks-effects-interactions under a reentrancy guard.
///
/// @dev Roles. The `operator` (the service's hot key) settles funded slots before their expiry,
/// within the bounds above, and sweeps fees. The payer and the agent act on their own slot without
/// it: the payer releases to the agent, the agent refunds to the payer, at any time while funded.
/// The `owner` (a cold key or a multisig) may replace or revoke the operator and pause new
/// deposits and operator settlements, e.g. when the hot key leaks. None of that reaches assigning
/// or moving agents, extending expiries, the payer's release, the agent's refund, claiming credits
/// or `claimRefund`: a paused contract or a revoked operator still lets every payer take its
/// money back at the expiry.
///
/// @dev The surface is the one decided in DESIGN.md ("Escrow v2 surface"). Beyond it, and not in
/// its way: `depositWithPermit`; the EIP-3009 nonce bound to job and expiry (`depositNonce`); the
/// agent moving its own payout address (`moveAgent`, `moveAgentWithSig`); credit-and-claim for
/// recipients the token refuses; the owner role (operator replacement, pause); fee withdrawal to
/// an immutable recipient; `getPart`; and more fields after DESIGN.md's five in `getEscrow`.
contract EscrowV2 is EIP712, Ownable2Step, Pausable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    enum State {
        None,
        Funded,
        /// What remained went to the agent (less the fee): by the operator, or by the payer's consent.
        Released,
        /// What remained went back to the payer: by the operator, or by the agent giving up.
        Refunded,
        /// The operator divided what remained between agent and payer (a dispute ruling).
        Split,
        /// Every unit of the deposit left through its parts (milestones).
        PartsSettled,
        /// The expiry passed and `claimRefund` returned what remained to the payer.
        RefundClaimed
    }

    /// @dev Three storage words, laid out so that a settlement writes one word that is already
    /// non-zero (a zero-to-non-zero write costs 20,000 gas more): (state, agent, expiresAt,
    /// settledBlock), written at deposit and rewritten at the settlement; (amount, partsSettled),
    /// written at deposit and rewritten by each part; moveNonce alone, written only by the agent's
    /// moves. uint40 holds unix seconds to the year 36812 and uint48 block numbers beyond any
    /// chain's life; deposits are checked to fit 128 bits.
    struct Slot {
        State state;
        /// The address the agent is paid at: assigned once by the payer's consent (zero until
        /// then), afterwards moved only by the agent itself.
        address agent;
        /// Unix time from which the operator can no longer settle and anyone may `claimRefund`.
        uint40 expiresAt;
        /// Block of the final settlement (0 while funded), for a one-block log query off chain.
        uint48 settledBlock;
        uint128 amount;
        /// Units already settled part by part: whole-slot settlements take `amount - partsSettled`.
        uint128 partsSettled;
        /// Consumed by each move of the agent, signed or called: a `MoveAgent` signature is good
        /// for one move of this slot, never replayed (not even after the agent moved back).
        uint64 moveNonce;
    }

    /// Caps the fee so a deployment cannot take more than 10% of a budget.
    uint16 public constant MAX_FEE_BPS = 1_000;
    uint256 private constant BPS_DENOMINATOR = 10_000;
    /// The earliest expiry a deposit may choose, from its block's time: time for the job to be done.
    uint256 public constant MIN_EXPIRY_DELAY = 1 days;
    /// The latest expiry a deposit (or an extension) may choose: money is never locked for longer.
    uint256 public constant MAX_EXPIRY_DELAY = 400 days;

    /// EIP-712 struct of the payer's consent to pay `agent` from its slot of `jobId`. No nonce: the
    /// agent is assigned once, so a replay finds it assigned and reverts; `deadline` bounds it.
    bytes32 public constant ASSIGN_TYPEHASH =
        keccak256("Assign(bytes32 jobId,address payer,address agent,uint256 deadline)");
    /// EIP-712 struct of the current agent's consent to be paid at `newAgent` instead (beyond
    /// DESIGN.md's surface); `nonce` is the slot's `moveNonce`.
    bytes32 public constant MOVE_AGENT_TYPEHASH = keccak256(
        "MoveAgent(bytes32 jobId,address payer,address agent,address newAgent,uint256 nonce,uint256 deadline)"
    );

    /// EIP-712 struct of the payer's approval of the work: release what remains to `agent`.
    bytes32 public constant APPROVE_TYPEHASH =
        keccak256("Approve(bytes32 jobId,address payer,address agent,uint256 deadline)");

    IERC20 public immutable token;
    address public immutable feeRecipient;
    /// Fee in basis points on what goes to the agent: 500 = 5%, so a 0.20 release pays 0.19.
    /// Immutable, so the fee in force at a slot's deposit never rises for that slot.
    uint16 public immutable feeBps;
    /// The service's settling key; the owner may replace it, or revoke it with the zero address.
    address public operator;

    mapping(bytes32 jobId => mapping(address payer => Slot)) private _slots;
    /// Block in which each part of a slot was settled (0 while not): a part settles once.
    mapping(bytes32 jobId => mapping(address payer => mapping(uint256 part => uint64 settledBlock))) private _parts;
    /// Payouts the token refused, claimable by the address they were meant for.
    mapping(address account => uint256) public claimable;
    uint256 public totalClaimable;
    /// Fees of releases not yet withdrawn to the fee recipient.
    uint256 public feesAccrued;

    event Deposited(bytes32 indexed jobId, address indexed payer, uint256 amount, uint64 expiresAt);
    event ExpiryExtended(bytes32 indexed jobId, address indexed payer, uint64 expiresAt);
    /// The payer consented (`bySignature`: through a relayed signature) to pay `agent` from its slot.
    event AgentAssigned(bytes32 indexed jobId, address indexed payer, address indexed agent, bool bySignature);
    /// The agent `from` consented to be paid at `to` instead.
    event AgentMoved(bytes32 indexed jobId, address indexed payer, address indexed from, address to, bool bySignature);
    /// What remained went to the agent: `amount` paid, `fee` kept; amount + fee = what remained.
    event Released(bytes32 indexed jobId, address indexed payer, address indexed agent, uint256 amount, uint256 fee);
    /// Part `part` went to the agent: `amount` paid, `fee` kept; amount + fee = the part.
    event PartReleased(
        bytes32 indexed jobId, address indexed payer, uint256 indexed part, address agent, uint256 amount, uint256 fee
    );
    /// What remained went back to the payer, whole (no fee), by the operator's decision.
    event Refunded(bytes32 indexed jobId, address indexed payer, uint256 amount);
    /// Part `part` went back to the payer, whole (no fee).
    event PartRefunded(bytes32 indexed jobId, address indexed payer, uint256 indexed part, uint256 amount);
    /// What remained was divided: agentAmount + fee + payerAmount = what remained.
    event Split(
        bytes32 indexed jobId,
        address indexed payer,
        address indexed agent,
        uint256 agentAmount,
        uint256 fee,
        uint256 payerAmount
    );
    /// Part `part` was divided: agentAmount + fee + payerAmount = the part.
    event PartSplit(
        bytes32 indexed jobId,
        address indexed payer,
        uint256 indexed part,
        address agent,
        uint256 agentAmount,
        uint256 fee,
        uint256 payerAmount
    );
    /// After the expiry, `caller` (anyone) returned what remained, `amount`, to the payer.
    event RefundClaimed(bytes32 indexed jobId, address indexed payer, address indexed caller, uint256 amount);
    /// A payout for `jobId` that the token refused, now claimable by `account`.
    event Credited(bytes32 indexed jobId, address indexed account, uint256 amount);
    event Claimed(address indexed account, address indexed to, uint256 amount);
    event FeesWithdrawn(address indexed to, uint256 amount);
    event OperatorChanged(address indexed previousOperator, address indexed newOperator);

    error NotOperator(address caller);
    error NotOperatorOrPayer(address caller);
    error NotOperatorOrAgent(address caller);
    /// A relayed EIP-3009 deposit's nonce must be `depositNonce(jobId, expiresAt)`, so the payer's
    /// authorization also fixes which job and expiry its money goes to.
    error NonceNotBoundToDeposit(bytes32 expected, bytes32 given);
    error NotAgent(address caller, address agent);
    error ZeroAddress();
    error ZeroJobId();
    error ZeroAmount();
    error FeeTooHigh(uint256 feeBps);
    error AlreadyDeposited(bytes32 jobId, address payer);
    error NotFunded(bytes32 jobId, address payer, State state);
    error ExpiryTooSoon(uint64 expiresAt, uint256 earliest);
    error ExpiryTooLate(uint64 expiresAt, uint256 latest);
    error ExpiryNotLater(uint64 expiresAt, uint64 current);
    /// The operator came too late: from the expiry on, only `claimRefund` moves the slot.
    error SlotExpired(bytes32 jobId, address payer, uint64 expiresAt);
    error NotExpiredYet(bytes32 jobId, address payer, uint64 expiresAt);
    error AgentNotAssigned(bytes32 jobId, address payer);
    error AgentAlreadyAssigned(bytes32 jobId, address payer, address agent);
    error InvalidAgent(address agent);
    error InvalidRecipient(address to);
    error SignatureExpired(uint256 deadline);
    /// The signature is not the named signer's for this struct, chain and contract.
    error InvalidSignature(address signer);
    /// The signed nonce is not the slot's next one: used already (a replay) or not yet.
    error WrongNonce(uint256 expected, uint256 given);
    error ShareTooLarge(uint256 agentShare, uint256 amount);
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

    constructor(IERC20 token_, address operator_, address feeRecipient_, uint16 feeBps_, address owner_)
        EIP712("AgentWorkEscrow", "2")
        Ownable(owner_)
    {
        if (address(token_) == address(0) || operator_ == address(0) || feeRecipient_ == address(0)) {
            revert ZeroAddress();
        }
        if (feeBps_ > MAX_FEE_BPS) revert FeeTooHigh(feeBps_);
        token = token_;
        operator = operator_;
        feeRecipient = feeRecipient_;
        feeBps = feeBps_;
        emit OperatorChanged(address(0), operator_);
    }

    // ---------------------------------------------------------------- payer

    /// @notice Pulls `amount` from the caller (after an approve) into its slot of the job, which
    /// the operator can settle until `expiresAt` (unix seconds, 1 to 400 days ahead) and which
    /// returns to the caller from then on through `claimRefund`.
    function deposit(bytes32 jobId, uint256 amount, uint64 expiresAt) external nonReentrant whenNotPaused {
        uint256 before = _openSlot(jobId, msg.sender, amount, expiresAt);
        token.safeTransferFrom(msg.sender, address(this), amount);
        _checkArrived(jobId, msg.sender, amount, expiresAt, before);
    }

    /// @notice Approves through an EIP-2612 permit signed by the caller, then deposits.
    function depositWithPermit(
        bytes32 jobId,
        uint256 amount,
        uint64 expiresAt,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external nonReentrant whenNotPaused {
        // Anyone can submit the signed permit first (from the mempool), which would make this
        // permit revert although the allowance is in place: a failed permit is tolerated, and the
        // pull below fails if the allowance does not cover it.
        try IERC20Permit(address(token)).permit(msg.sender, address(this), amount, deadline, v, r, s) {} catch {}
        uint256 before = _openSlot(jobId, msg.sender, amount, expiresAt);
        token.safeTransferFrom(msg.sender, address(this), amount);
        _checkArrived(jobId, msg.sender, amount, expiresAt, before);
    }

    /// @notice Deposits into `payer`'s slot with the payer's EIP-3009 `ReceiveWithAuthorization`
    /// (USDC's gasless transfer, `to` = this contract); anyone may send it. The authorization's
    /// nonce must be `depositNonce(jobId, expiresAt)`: the payer's signature then covers the job and
    /// the expiry too, and nobody holding it can put the money under another job or lock it longer.
    function depositWithAuthorization(
        bytes32 jobId,
        address payer,
        uint256 amount,
        uint64 expiresAt,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external nonReentrant whenNotPaused {
        bytes32 bound = depositNonce(jobId, expiresAt);
        if (nonce != bound) revert NonceNotBoundToDeposit(bound, nonce);
        uint256 before = _openSlot(jobId, payer, amount, expiresAt);
        IERC3009(address(token)).receiveWithAuthorization(
            payer, address(this), amount, validAfter, validBefore, nonce, signature
        );
        _checkArrived(jobId, payer, amount, expiresAt, before);
    }

    /// @notice The EIP-3009 nonce a payer signs for `depositWithAuthorization` into a job with an expiry.
    function depositNonce(bytes32 jobId, uint64 expiresAt) public pure returns (bytes32) {
        return keccak256(abi.encode(jobId, expiresAt));
    }

    /// @notice Moves the expiry of the caller's slot later (never earlier: the agent counts on
    /// the time it was given), at most 400 days from now.
    function extendExpiry(bytes32 jobId, uint64 expiresAt) external {
        Slot storage d = _funded(jobId, msg.sender);
        if (expiresAt <= d.expiresAt) revert ExpiryNotLater(expiresAt, d.expiresAt);
        uint256 latest = block.timestamp + MAX_EXPIRY_DELAY;
        if (expiresAt > latest) revert ExpiryTooLate(expiresAt, latest);
        // Fits: at most 400 days from now (checked above).
        d.expiresAt = uint40(expiresAt);
        emit ExpiryExtended(jobId, msg.sender, expiresAt);
    }

    /// @notice Assigns the agent of `payer`'s slot, once: the address every release pays. Sent by
    /// the payer with an empty `signature`, or by anyone with the payer's EIP-712 `Assign` (an EOA's
    /// 65 bytes, or whatever its ERC-1271 wallet accepts). `deadline` (unix seconds) is the last
    /// second the assignment is good for, checked either way.
    function assign(bytes32 jobId, address payer, address agent, uint256 deadline, bytes calldata signature)
        external
    {
        Slot storage d = _funded(jobId, payer);
        // Checked before the signature, so a replayed one (even after the agent moved) says why.
        if (d.agent != address(0)) revert AgentAlreadyAssigned(jobId, payer, d.agent);
        if (block.timestamp > deadline) revert SignatureExpired(deadline);
        bool bySignature = !(msg.sender == payer && signature.length == 0);
        if (bySignature) {
            bytes32 structHash = keccak256(abi.encode(ASSIGN_TYPEHASH, jobId, payer, agent, deadline));
            if (!SignatureChecker.isValidSignatureNowCalldata(payer, _hashTypedDataV4(structHash), signature)) {
                revert InvalidSignature(payer);
            }
        }
        _validAgent(agent);
        d.agent = agent;
        emit AgentAssigned(jobId, payer, agent, bySignature);
    }

    // ---------------------------------------------------------------- agent

    /// @notice The current agent of `payer`'s slot has it pay `newAgent` instead.
    function moveAgent(bytes32 jobId, address payer, address newAgent) external {
        Slot storage d = _funded(jobId, payer);
        if (d.agent == address(0)) revert AgentNotAssigned(jobId, payer);
        if (msg.sender != d.agent) revert NotAgent(msg.sender, d.agent);
        _moveAgent(d, jobId, payer, newAgent, false);
    }

    /// @notice Moves the agent with the current agent's EIP-712 `MoveAgent` signature; anyone may relay it.
    function moveAgentWithSig(
        bytes32 jobId,
        address payer,
        address newAgent,
        uint256 nonce,
        uint256 deadline,
        bytes calldata signature
    ) external {
        Slot storage d = _funded(jobId, payer);
        address agent = d.agent;
        if (agent == address(0)) revert AgentNotAssigned(jobId, payer);
        bytes32 structHash =
            keccak256(abi.encode(MOVE_AGENT_TYPEHASH, jobId, payer, agent, newAgent, nonce, deadline));
        if (block.timestamp > deadline) revert SignatureExpired(deadline);
        if (nonce != d.moveNonce) revert WrongNonce(d.moveNonce, nonce);
        if (!SignatureChecker.isValidSignatureNowCalldata(agent, _hashTypedDataV4(structHash), signature)) {
            revert InvalidSignature(agent);
        }
        _moveAgent(d, jobId, payer, newAgent, true);
    }

    // ---------------------------------------------------------------- anyone

    /// @notice From the slot's expiry on, returns what it still holds to its payer, whoever calls.
    /// Deliberately without `whenNotPaused` or any role: this is the path that never needs the service.
    function claimRefund(bytes32 jobId, address payer) external nonReentrant {
        Slot storage d = _slots[jobId][payer];
        if (d.state != State.Funded) revert NotFunded(jobId, payer, d.state);
        if (block.timestamp < d.expiresAt) revert NotExpiredYet(jobId, payer, d.expiresAt);
        uint256 amount = _close(d, State.RefundClaimed);
        _pay(jobId, payer, amount);
        emit RefundClaimed(jobId, payer, msg.sender, amount);
    }

    /// @notice Sends the caller's credit (payouts the token refused) to `to`.
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

    // ---------------------------------------------------------------- settling: the operator before the
    // expiry; the payer (release) and the agent (refund) on their own slot at any time

    /// @notice Pays what remains of `payer`'s slot to its assigned agent, less the fee. The operator
    /// may, before the expiry and unpaused; the payer itself may at any time while funded.
    function release(bytes32 jobId, address payer) external nonReentrant {
        Slot storage d;
        if (msg.sender == payer) {
            d = _funded(jobId, payer);
        } else {
            if (msg.sender != operator) revert NotOperatorOrPayer(msg.sender);
            d = _operatorSettleable(jobId, payer);
        }
        _release(d, jobId, payer, _agentOf(d, jobId, payer));
    }

    /// @notice Releases with the payer's EIP-712 `Approve` of the work, relayed by anyone (e.g. the
    /// agent, when the service is gone): needs neither the operator nor an unpaused contract. The
    /// struct names the current agent; no nonce, since a release closes the slot once and for all.
    function releaseWithApproval(bytes32 jobId, address payer, uint256 deadline, bytes calldata signature)
        external
        nonReentrant
    {
        Slot storage d = _funded(jobId, payer);
        address agent = _agentOf(d, jobId, payer);
        if (block.timestamp > deadline) revert SignatureExpired(deadline);
        bytes32 structHash = keccak256(abi.encode(APPROVE_TYPEHASH, jobId, payer, agent, deadline));
        if (!SignatureChecker.isValidSignatureNowCalldata(payer, _hashTypedDataV4(structHash), signature)) {
            revert InvalidSignature(payer);
        }
        _release(d, jobId, payer, agent);
    }

    /// @notice Returns what remains of `payer`'s slot to the payer (no fee); no agent needed. The
    /// operator may, before the expiry and unpaused; the assigned agent may at any time (giving up).
    function refund(bytes32 jobId, address payer) external nonReentrant {
        Slot storage d = _slots[jobId][payer];
        // msg.sender is never the zero address, so an unassigned agent never matches.
        if (msg.sender == d.agent) {
            d = _funded(jobId, payer);
        } else {
            if (msg.sender != operator) revert NotOperatorOrAgent(msg.sender);
            d = _operatorSettleable(jobId, payer);
        }
        uint256 amount = _close(d, State.Refunded);
        _pay(jobId, payer, amount);
        emit Refunded(jobId, payer, amount);
    }

    /// @notice Divides what remains as a dispute ruling: `agentShare` to the agent less the fee
    /// (on that share only), the rest to the payer.
    function settleSplit(bytes32 jobId, address payer, uint256 agentShare)
        external
        onlyOperator
        whenNotPaused
        nonReentrant
    {
        Slot storage d = _settleable(jobId, payer);
        address agent = _agentOf(d, jobId, payer);
        uint256 amount = _close(d, State.Split);
        if (agentShare > amount) revert ShareTooLarge(agentShare, amount);
        (uint256 agentAmount, uint256 fee, uint256 payerAmount) = _divide(jobId, payer, agent, amount, agentShare);
        emit Split(jobId, payer, agent, agentAmount, fee, payerAmount);
    }

    /// @notice Releases part `part` (a milestone), `amount` units of what remains, to the agent
    /// less the fee. Each part settles once; what the parts leave, the whole-slot functions settle.
    function releasePart(bytes32 jobId, address payer, uint256 part, uint256 amount)
        external
        onlyOperator
        whenNotPaused
        nonReentrant
    {
        Slot storage d = _settleable(jobId, payer);
        address agent = _agentOf(d, jobId, payer);
        _settlePart(d, jobId, payer, part, amount);
        uint256 fee = _fee(amount);
        _pay(jobId, agent, amount - fee);
        emit PartReleased(jobId, payer, part, agent, amount - fee, fee);
    }

    /// @notice Returns part `part`, `amount` units, to the payer (no fee). Once per part.
    function refundPart(bytes32 jobId, address payer, uint256 part, uint256 amount)
        external
        onlyOperator
        whenNotPaused
        nonReentrant
    {
        Slot storage d = _settleable(jobId, payer);
        _settlePart(d, jobId, payer, part, amount);
        _pay(jobId, payer, amount);
        emit PartRefunded(jobId, payer, part, amount);
    }

    /// @notice Divides part `part` (`amount` units): `agentShare` to the agent less the fee, the
    /// rest of the part to the payer. Once per part.
    function settlePartSplit(bytes32 jobId, address payer, uint256 part, uint256 amount, uint256 agentShare)
        external
        onlyOperator
        whenNotPaused
        nonReentrant
    {
        Slot storage d = _settleable(jobId, payer);
        address agent = _agentOf(d, jobId, payer);
        if (agentShare > amount) revert ShareTooLarge(agentShare, amount);
        _settlePart(d, jobId, payer, part, amount);
        (uint256 agentAmount, uint256 fee, uint256 payerAmount) = _divide(jobId, payer, agent, amount, agentShare);
        emit PartSplit(jobId, payer, part, agent, agentAmount, fee, payerAmount);
    }

    /// @notice Sends every accrued fee to the immutable fee recipient: the operator chooses when, never where.
    function withdrawFees() external onlyOperator nonReentrant returns (uint256 amount) {
        amount = feesAccrued;
        if (amount == 0) revert NoFeesAccrued();
        feesAccrued = 0;
        token.safeTransfer(feeRecipient, amount);
        emit FeesWithdrawn(feeRecipient, amount);
    }

    // ---------------------------------------------------------------- owner

    /// @notice Replaces the operator, or revokes it with the zero address (no settlement then
    /// until a new one; expired slots still return through `claimRefund`).
    function setOperator(address newOperator) external onlyOwner {
        emit OperatorChanged(operator, newOperator);
        operator = newOperator;
    }

    /// @notice Stops new deposits and the operator's settlements; never `claimRefund`, `claim`
    /// or the payer's and agent's own functions.
    function pause() external onlyOwner {
        _pause();
    }

    function unpause() external onlyOwner {
        _unpause();
    }

    // ---------------------------------------------------------------- views

    /// @notice `payer`'s slot of the job: its state, the deposit, the agent (zero until assigned), the
    /// expiry, the fee (immutable, so the one in force at deposit), what the parts took, the
    /// settlement block (0 while funded) and the nonce a signed `MoveAgent` must carry next.
    function getEscrow(bytes32 jobId, address payer)
        external
        view
        returns (
            State state,
            uint256 amount,
            address agent,
            uint64 expiresAt,
            uint16 slotFeeBps,
            uint256 partsSettled,
            uint64 settledBlock,
            uint256 moveNonce
        )
    {
        Slot storage d = _slots[jobId][payer];
        return (d.state, d.amount, d.agent, d.expiresAt, feeBps, d.partsSettled, d.settledBlock, d.moveNonce);
    }

    /// @notice The block in which part `part` settled (0 while not), and what the slot still holds.
    function getPart(bytes32 jobId, address payer, uint256 part)
        external
        view
        returns (uint64 settledBlock, uint256 remaining)
    {
        Slot storage d = _slots[jobId][payer];
        uint256 left = d.state == State.Funded ? d.amount - d.partsSettled : 0;
        return (_parts[jobId][payer][part], left);
    }

    /// @notice The EIP-712 domain separator (name "AgentWorkEscrow", version "2", this chain and contract).
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    // ---------------------------------------------------------------- internals

    /// Checks a deposit's terms and records the slot before any token moves (checks-effects-
    /// interactions, on top of the guard); returns the balance to measure the arrival against.
    function _openSlot(bytes32 jobId, address payer, uint256 amount, uint64 expiresAt)
        private
        returns (uint256 balanceBefore)
    {
        if (jobId == bytes32(0)) revert ZeroJobId();
        if (amount == 0) revert ZeroAmount();
        uint256 earliest = block.timestamp + MIN_EXPIRY_DELAY;
        if (expiresAt < earliest) revert ExpiryTooSoon(expiresAt, earliest);
        uint256 latest = block.timestamp + MAX_EXPIRY_DELAY;
        if (expiresAt > latest) revert ExpiryTooLate(expiresAt, latest);
        Slot storage d = _slots[jobId][payer];
        if (d.state != State.None) revert AlreadyDeposited(jobId, payer);
        d.state = State.Funded;
        d.amount = SafeCast.toUint128(amount);
        // Fits: at most 400 days from now (checked above).
        d.expiresAt = uint40(expiresAt);
        return token.balanceOf(address(this));
    }

    function _checkArrived(bytes32 jobId, address payer, uint256 amount, uint64 expiresAt, uint256 balanceBefore)
        private
    {
        // The recorded amount must be what arrived, or settlements would pay out other slots' money.
        uint256 received = token.balanceOf(address(this)) - balanceBefore;
        if (received != amount) revert AmountMismatch(amount, received);
        emit Deposited(jobId, payer, amount, expiresAt);
    }

    function _funded(bytes32 jobId, address payer) private view returns (Slot storage d) {
        d = _slots[jobId][payer];
        if (d.state != State.Funded) revert NotFunded(jobId, payer, d.state);
    }

    /// A funded slot the operator (the caller checks who it is) may still settle: the contract is
    /// not paused and the slot's expiry has not come.
    function _operatorSettleable(bytes32 jobId, address payer) private view returns (Slot storage d) {
        _requireNotPaused();
        d = _settleable(jobId, payer);
    }

    /// A funded slot the operator may still settle: its expiry has not come.
    function _settleable(bytes32 jobId, address payer) private view returns (Slot storage d) {
        d = _funded(jobId, payer);
        if (block.timestamp >= d.expiresAt) revert SlotExpired(jobId, payer, d.expiresAt);
    }

    function _agentOf(Slot storage d, bytes32 jobId, address payer) private view returns (address agent) {
        agent = d.agent;
        if (agent == address(0)) revert AgentNotAssigned(jobId, payer);
    }

    function _validAgent(address agent) private view {
        if (agent == address(0) || agent == address(this)) revert InvalidAgent(agent);
    }

    function _moveAgent(Slot storage d, bytes32 jobId, address payer, address newAgent, bool bySignature) private {
        _validAgent(newAgent);
        address from = d.agent;
        d.agent = newAgent;
        // Every move consumes the nonce, so a signature made before a called move is void too.
        d.moveNonce++;
        emit AgentMoved(jobId, payer, from, newAgent, bySignature);
    }

    function _release(Slot storage d, bytes32 jobId, address payer, address agent) private {
        uint256 amount = _close(d, State.Released);
        uint256 fee = _fee(amount);
        _pay(jobId, agent, amount - fee);
        emit Released(jobId, payer, agent, amount - fee, fee);
    }

    /// Marks a funded slot settled for good before any token moves, so no second settlement
    /// (sequential or reentrant) finds it funded; returns what the parts had not taken.
    function _close(Slot storage d, State next) private returns (uint256 remaining) {
        d.state = next;
        d.settledBlock = uint48(block.number);
        return d.amount - d.partsSettled;
    }

    /// Marks part `part` settled for `amount` units of what remains, before any token moves. The
    /// slot becomes PartsSettled when its parts have taken the whole deposit.
    function _settlePart(Slot storage d, bytes32 jobId, address payer, uint256 part, uint256 amount) private {
        if (_parts[jobId][payer][part] != 0) revert PartAlreadySettled(jobId, payer, part);
        if (amount == 0) revert ZeroAmount();
        uint256 remaining = d.amount - d.partsSettled;
        if (amount > remaining) revert PartTooLarge(amount, remaining);
        _parts[jobId][payer][part] = uint64(block.number);
        // amount <= remaining <= d.amount, and deposits never come near 2^128 units.
        d.partsSettled += uint128(amount);
        if (amount == remaining) {
            d.state = State.PartsSettled;
            d.settledBlock = uint48(block.number);
        }
    }

    /// The fee on `amount` going to the agent, accrued until `withdrawFees` (same arithmetic as version 1).
    function _fee(uint256 amount) private returns (uint256 fee) {
        fee = (amount * feeBps) / BPS_DENOMINATOR;
        feesAccrued += fee;
    }

    function _divide(bytes32 jobId, address payer, address agent, uint256 amount, uint256 agentShare)
        private
        returns (uint256 agentAmount, uint256 fee, uint256 payerAmount)
    {
        fee = _fee(agentShare);
        agentAmount = agentShare - fee;
        payerAmount = amount - agentShare;
        if (agentAmount > 0) _pay(jobId, agent, agentAmount);
        if (payerAmount > 0) _pay(jobId, payer, payerAmount);
    }

    function _pay(bytes32 jobId, address to, uint256 amount) private {
        uint256 gasBefore = gasleft();
        if (token.trySafeTransfer(to, amount)) return;
        // By the 63/64 rule a transfer that ran out of gas leaves at most 1/64 of what we had:
        // that is the sender's too-low gas limit, not a refusing recipient, so revert rather than
        // push a payout the token would accept into the claimable path.
        if (gasleft() <= gasBefore / 63) revert InsufficientGas();
        claimable[to] += amount;
        totalClaimable += amount;
        emit Credited(jobId, to, amount);
    }
}
