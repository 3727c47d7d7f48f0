// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721URIStorage} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721URIStorage.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// ERC-8004 (Trustless Agents) Identity Registry, written from the specification's "Identity
/// Registry" section: an ERC-721 with URIStorage whose tokenId is the agentId (assigned
/// incrementally) and whose tokenURI is the agentURI (the agent registration file), with on-chain
/// metadata and the reserved `agentWallet` key (set to the owner on registration, changed only with
/// the new wallet's EIP-712 / ERC-1271 signature, cleared on transfer).
contract IdentityRegistry is ERC721URIStorage, EIP712 {
    struct MetadataEntry {
        string metadataKey;
        bytes metadataValue;
    }

    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
    event MetadataSet(uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue);
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);

    error NotAuthorized();
    error ReservedKey();
    error BadWallet();
    error DeadlineExpired();
    error DeadlineTooFar();
    error InvalidWalletSignature();

    bytes32 private constant AGENT_WALLET_SET_TYPEHASH =
        keccak256("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)");
    bytes32 private constant AGENT_WALLET_KEY_HASH = keccak256("agentWallet");
    uint256 private constant MAX_DEADLINE_DELAY = 5 minutes;

    uint256 private _lastId;
    mapping(uint256 => mapping(string => bytes)) private _metadata;

    constructor() ERC721("AgentIdentity", "AGENT") EIP712("ERC8004IdentityRegistry", "1") {}

    function register() external returns (uint256 agentId) {
        agentId = _mintAgent("");
    }

    function register(string calldata agentURI) external returns (uint256 agentId) {
        agentId = _mintAgent(agentURI);
    }

    function register(string calldata agentURI, MetadataEntry[] calldata metadata) external returns (uint256 agentId) {
        agentId = _mintAgent(agentURI);
        for (uint256 i; i < metadata.length; i++) {
            _setMetadata(agentId, metadata[i].metadataKey, metadata[i].metadataValue);
        }
    }

    function getMetadata(uint256 agentId, string calldata metadataKey) external view returns (bytes memory) {
        return _metadata[agentId][metadataKey];
    }

    function setMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue) external {
        _requireOwnerOrOperator(agentId);
        _setMetadata(agentId, metadataKey, metadataValue);
    }

    function setAgentURI(uint256 agentId, string calldata newURI) external {
        _requireOwnerOrOperator(agentId);
        _setTokenURI(agentId, newURI);
        emit URIUpdated(agentId, newURI, msg.sender);
    }

    function getAgentWallet(uint256 agentId) external view returns (address) {
        bytes memory value = _metadata[agentId]["agentWallet"];
        if (value.length != 20) return address(0);
        return address(bytes20(value));
    }

    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature) external {
        address agentOwner = _requireOwnerOrOperator(agentId);
        if (newWallet == address(0)) revert BadWallet();
        if (block.timestamp > deadline) revert DeadlineExpired();
        if (deadline > block.timestamp + MAX_DEADLINE_DELAY) revert DeadlineTooFar();
        bytes32 digest = _hashTypedDataV4(
            keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, agentId, newWallet, agentOwner, deadline))
        );
        // ECDSA for EOAs, ERC-1271 for contract wallets.
        if (!SignatureChecker.isValidSignatureNow(newWallet, digest, signature)) revert InvalidWalletSignature();
        _writeAgentWallet(agentId, abi.encodePacked(newWallet));
    }

    function unsetAgentWallet(uint256 agentId) external {
        _requireOwnerOrOperator(agentId);
        _writeAgentWallet(agentId, "");
    }

    /// Whether `spender` is the agent's owner or an approved operator (reverts for an unknown agent).
    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool) {
        return _isAuthorized(ownerOf(agentId), spender, agentId);
    }

    function _mintAgent(string memory agentURI) private returns (uint256 agentId) {
        agentId = _lastId++;
        _safeMint(msg.sender, agentId);
        if (bytes(agentURI).length > 0) _setTokenURI(agentId, agentURI);
        emit Registered(agentId, agentURI, msg.sender);
        _writeAgentWallet(agentId, abi.encodePacked(msg.sender));
    }

    function _setMetadata(uint256 agentId, string calldata key, bytes calldata value) private {
        if (keccak256(bytes(key)) == AGENT_WALLET_KEY_HASH) revert ReservedKey();
        _metadata[agentId][key] = value;
        emit MetadataSet(agentId, key, key, value);
    }

    function _writeAgentWallet(uint256 agentId, bytes memory value) private {
        _metadata[agentId]["agentWallet"] = value;
        emit MetadataSet(agentId, "agentWallet", "agentWallet", value);
    }

    function _requireOwnerOrOperator(uint256 agentId) private view returns (address agentOwner) {
        agentOwner = ownerOf(agentId);
        if (!_isAuthorized(agentOwner, msg.sender, agentId)) revert NotAuthorized();
    }

    /// A transfer (not a mint or burn) clears agentWallet: the new owner must verify a wallet again.
    function _update(address to, uint256 tokenId, address auth) internal override returns (address) {
        address from = _ownerOf(tokenId);
        if (from != address(0) && to != address(0)) _writeAgentWallet(tokenId, "");
        return super._update(to, tokenId, auth);
    }
}
